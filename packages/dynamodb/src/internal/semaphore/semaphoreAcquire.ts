/**
 * `tryAcquirePermits`: one conditional write that creates a semaphore's item, or adds a holder to it while removing
 * holders whose leases are over, guarded against removing them on a skewed clock as a lock's takeover is (the core's
 * `TakeoverGuard` decides).
 *
 * @internal
 */
import type { ItemMap } from "@leasehold/core/dynamodb/AttributeValue"
import * as Calls from "@leasehold/core/dynamodb/Calls"
import * as Failure from "@leasehold/core/dynamodb/Failure"
import * as GuardedTakeover from "@leasehold/core/dynamodb/GuardedTakeover"
import * as LockExpressions from "@leasehold/core/dynamodb/LockExpressions"
import * as SemaphoreExpressions from "@leasehold/core/dynamodb/SemaphoreExpressions"
import * as SemaphoreWrites from "@leasehold/core/dynamodb/SemaphoreWrites"
import { LockStoreError } from "@leasehold/lock/LockError"
import type { SemaphoreRecord } from "@leasehold/lock/SemaphoreRecord"
import * as SemaphoreStore from "@leasehold/lock/SemaphoreStore"
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as EffectLine from "../effectLine.js"
import type * as StoreContext from "../store/storeContext.js"
import * as ClockSkew from "../transport/clockSkew.js"
import * as Unpin from "./unpin.js"

type Result = SemaphoreStore.AcquirePermitsResult
type Expired = ReadonlyArray<SemaphoreStore.ExpiredPermit>

const operation = "tryAcquirePermits"

const refuse = (message: string) =>
  Effect.fail(new LockStoreError({ operation, retryable: false, mayHaveApplied: false, message }))

/** Arithmetic on `fence` or `used`, or a path into `holders`, fails on an item with the wrong types: a malformed one. */
const malformedItem = (context: StoreContext.StoreContext, key: ItemMap) => (error: LockStoreError) => {
  const problem = Failure.semaphoreTypeProblem(error.message)
  return problem === undefined
    ? error
    : context.malformedSemaphore(operation, context.layout.describeKey(key), problem, error.cause)
}

/** @internal */
export const make = (context: StoreContext.StoreContext): SemaphoreStore.SemaphoreOperations["tryAcquirePermits"] => {
  const { tableName, ttlRetentionMs } = context

  const acquired = (semaphore: SemaphoreRecord, key: ItemMap, owner: string): Effect.Effect<Result, LockStoreError> => {
    const result = SemaphoreWrites.acquired(semaphore, owner)
    return result === undefined
      ? Effect.fail(context.malformedSemaphore(operation, context.layout.describeKey(key), `it lost holder ${owner}`))
      : Effect.succeed(result)
  }

  const conflict = (
    request: SemaphoreStore.AcquirePermitsRequest,
    key: ItemMap,
    item: ItemMap | undefined,
    attempts: number,
    clock: Clock.Clock
  ): Effect.Effect<Result, LockStoreError> =>
    // A create fails only on an item that exists; an acquire also on no item (the caller then creates it).
    Effect.flatMap(context.oldItem(operation, key, item, !request.create, clock), (old) =>
      old === undefined
        ? Effect.succeed<Result>({ _tag: "Conflict", current: undefined })
        : Effect.map(
          context.decodeSemaphore(operation, old),
          (current) => SemaphoreWrites.acquireConflict(request, attempts, current)
        ))

  const attempt = (
    request: SemaphoreStore.AcquirePermitsRequest,
    expired: Expired,
    key: ItemMap,
    now: number,
    clock: Clock.Clock
  ): Effect.Effect<Result, LockStoreError> => {
    const ttl = LockExpressions.ttlAt(SemaphoreExpressions.leaseEnd(request, now), ttlRetentionMs)
    const parts = request.create
      ? SemaphoreExpressions.create(request, now, ttl, context.layout.partitionKey)
      : SemaphoreExpressions.acquire(request, expired, now, ttl)
    const write = context.update(Calls.calls.tryAcquirePermits, {
      TableName: tableName,
      Key: key,
      ...parts,
      ReturnValues: "ALL_NEW",
      ReturnValuesOnConditionCheckFailure: "ALL_OLD"
    }, clock)
    return Effect.flatMap(Effect.mapError(write, malformedItem(context, key)), (response) =>
      response._tag === "Ok"
        ? Effect.flatMap(
          context.decodeSemaphore(operation, response.output.Attributes ?? {}),
          (semaphore) =>
            Effect.tap(
              acquired(semaphore, key, request.owner),
              () => Unpin.ifStale(context, key, response.output.Attributes ?? {}, semaphore, clock)
            )
        )
        : conflict(request, key, response.item, response.attempts, clock))
  }

  return (request) =>
    context.keyedSemaphore(operation, request.name, (key, clock) => {
      const problem = SemaphoreStore.acquireProblem(request) ?? SemaphoreWrites.outlivesTtl(request, ttlRetentionMs)
      if (problem !== undefined) return refuse(problem)
      const now = EffectLine.currentTimeMillisUnsafe(clock)
      const expired = request.create ? [] : request.expired
      const { takeover } = request
      if (takeover._tag === "Observed") return attempt(request, expired, key, now, clock)
      // The guard, as for a lock's takeover: without an estimate that allows the removal, first ask without removing
      // anyone; the answer measures the clock, and the removal follows only if that measurement allows it (and still
      // finds the holders over).
      const skew = { monitor: context.skew, clock: ClockSkew.clockReads(clock) }
      const guard = GuardedTakeover.semaphore(skew, request.name, expired, now, takeover.maxClockSkewMs)
      const run = (step: GuardedTakeover.Step<Result>): Effect.Effect<Result, LockStoreError> => {
        switch (step._tag) {
          case "Attempt":
            return Effect.flatMap(
              attempt(request, step.takeOver ? expired : [], key, now, clock),
              (result) => run(GuardedTakeover.next(guard, step, result))
            )
          case "Answer":
            return Effect.succeed(step.result)
          case "Refuse":
            return refuse(step.message)
        }
      }
      return run(GuardedTakeover.first(guard))
    })
}
