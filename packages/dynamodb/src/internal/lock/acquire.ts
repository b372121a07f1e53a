/**
 * `tryAcquire`: one conditional write that takes a free lock, an expired one (absolute takeover) or a stale one
 * (observed takeover), guarded against taking over on a skewed clock (the core's `TakeoverGuard` decides).
 *
 * @internal
 */
import type { ItemMap } from "@leasehold/core/dynamodb/AttributeValue"
import * as Calls from "@leasehold/core/dynamodb/Calls"
import * as Failure from "@leasehold/core/dynamodb/Failure"
import * as GuardedTakeover from "@leasehold/core/dynamodb/GuardedTakeover"
import * as LockRequests from "@leasehold/core/dynamodb/LockRequests"
import { LockStoreError } from "@leasehold/lock/LockError"
import { payloadProblem } from "@leasehold/lock/LockRecord"
import type * as LockStore from "@leasehold/lock/LockStore"
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as EffectLine from "../effectLine.js"
import type * as StoreContext from "../store/storeContext.js"
import * as ClockSkew from "../transport/clockSkew.js"

type Condition = LockRequests.AcquireCondition
type Acquisition = LockRequests.Acquisition

const resultOfAcquisition = (acquisition: Acquisition): LockStore.AcquireResult => acquisition.result

const refusal = (message: string) =>
  new LockStoreError({ operation: "tryAcquire", retryable: false, mayHaveApplied: false, message })

/** The only arithmetic is on the fence: a type error there means a malformed item, which deserves its name. */
const malformedFence = (context: StoreContext.StoreContext, key: ItemMap) => (error: LockStoreError) => {
  const problem = Failure.fenceTypeProblem(error.message)
  return problem === undefined
    ? error
    : context.malformedItem("tryAcquire", context.layout.describeKey(key), problem, error.cause)
}

/** @internal */
export const make = (context: StoreContext.StoreContext): LockStore.LockStore["tryAcquire"] => {
  const { tableName, ttlRetentionMs } = context

  const attempt = (
    request: LockStore.AcquireRequest,
    key: ItemMap,
    now: number,
    condition: Condition,
    clock: Clock.Clock
  ): Effect.Effect<Acquisition, LockStoreError> =>
    Effect.flatMap(
      Effect.mapError(
        context.update(Calls.calls.tryAcquire, {
          TableName: tableName,
          Key: key,
          ...LockRequests.acquire(request, now, condition, ttlRetentionMs),
          ReturnValues: "ALL_NEW",
          ReturnValuesOnConditionCheckFailure: "ALL_OLD"
        }, clock),
        malformedFence(context, key)
      ),
      (response) => {
        if (response._tag === "Ok") {
          return Effect.map(
            context.decode("tryAcquire", response.output.Attributes ?? {}),
            (record): Acquisition => ({ result: { _tag: "Acquired", record }, holder: undefined })
          )
        }
        return Effect.map(
          context.conflicting("tryAcquire", key, response.item, false, clock),
          (current) => LockRequests.acquireConflict(request.owner, response.attempts, current)
        )
      }
    )

  const resultOf = (
    request: LockStore.AcquireRequest,
    key: ItemMap,
    now: number,
    condition: Condition,
    clock: Clock.Clock
  ) => Effect.map(attempt(request, key, now, condition, clock), resultOfAcquisition)

  return (request) =>
    context.keyed("tryAcquire", request.name, (key, clock) => {
      const payload = payloadProblem(request)
      if (payload !== undefined) return Effect.fail(refusal(payload.message))
      const now = EffectLine.currentTimeMillisUnsafe(clock)
      const { orphan, takeover } = request
      // A holder judged to be under a dead session is taken over as the judgement says, whichever the takeover.
      const orphanCondition: Condition | undefined = orphan === undefined ? undefined : { _tag: "FreeOrOrphan", orphan }

      if (takeover._tag === "Observed") {
        return resultOf(request, key, now, orphanCondition ?? LockRequests.observedCondition(takeover.stale), clock)
      }

      const maxClockSkewMs = takeover.maxClockSkewMs
      // An absolute judgement of a session is one by the wall clock too: the same guard applies to it.
      const expiredCondition: Condition = orphanCondition ?? { _tag: "FreeOrExpired", cutoff: now - maxClockSkewMs }
      // The guard's steps: an attempt that takes over at once, or one that takes nothing over and measures the clock.
      const skew = { monitor: context.skew, clock: ClockSkew.clockReads(clock) }
      const guard = GuardedTakeover.lock(skew, request.name, now, maxClockSkewMs)
      const run = (step: GuardedTakeover.Step<Acquisition>): Effect.Effect<LockStore.AcquireResult, LockStoreError> => {
        switch (step._tag) {
          case "Attempt":
            return Effect.flatMap(
              attempt(request, key, now, step.takeOver ? expiredCondition : LockRequests.freeOnly, clock),
              (acquisition) => run(GuardedTakeover.next(guard, step, acquisition))
            )
          case "Answer":
            return Effect.succeed(step.result.result)
          case "Refuse":
            return Effect.fail(refusal(step.message))
        }
      }
      return run(GuardedTakeover.first(guard))
    })
}
