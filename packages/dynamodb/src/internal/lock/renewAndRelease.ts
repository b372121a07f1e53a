/**
 * The writes on a held lock: `renew` extends the lease, `release` frees it for its owner, `forceRelease` frees it for
 * an operator, whoever holds it. Each is one conditional write (built by the core's `LockRequests`); a failed
 * condition answers with the current holder.
 *
 * @internal
 */
import * as Calls from "@leasehold/core/dynamodb/Calls"
import * as LockRequests from "@leasehold/core/dynamodb/LockRequests"
import { LockStoreError } from "@leasehold/lock/LockError"
import type { LockRecord } from "@leasehold/lock/LockRecord"
import type * as LockStore from "@leasehold/lock/LockStore"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as StoreContext from "../store/storeContext.js"

const released = Effect.succeed(LockRequests.released)

/** @internal */
export const make = (
  context: StoreContext.StoreContext
): Pick<LockStore.LockStore, "renew" | "release" | "forceRelease"> => {
  const { tableName, ttlRetentionMs } = context

  const renew = (request: LockStore.RenewRequest): Effect.Effect<LockStore.RenewResult, LockStoreError> =>
    context.keyed("renew", request.name, (key, clock) => {
      const problem = LockRequests.renewProblem(request)
      if (problem !== undefined) {
        return Effect.fail(
          new LockStoreError({ operation: "renew", retryable: false, mayHaveApplied: false, message: problem })
        )
      }
      return Effect.flatMap(
        context.update(Calls.calls.renew, {
          TableName: tableName,
          Key: key,
          ...LockRequests.renew(request, clock.unsafeCurrentTimeMillis(), ttlRetentionMs),
          ReturnValues: "ALL_NEW",
          ReturnValuesOnConditionCheckFailure: "ALL_OLD"
        }, clock),
        (response): Effect.Effect<LockStore.RenewResult, LockStoreError> =>
          response._tag === "Ok"
            ? Effect.map(
              context.decode("renew", response.output.Attributes ?? {}),
              (record) => ({ _tag: "Renewed", record }) as const
            )
            : Effect.map(
              context.conflicting("renew", key, response.item, true, clock),
              (current) => LockRequests.renewConflict(request, current)
            )
      )
    })

  const release = (request: LockStore.ReleaseRequest): Effect.Effect<LockStore.ReleaseResult, LockStoreError> =>
    context.keyed("release", request.name, (key, clock) =>
      Effect.flatMap(
        context.update(Calls.calls.release, {
          TableName: tableName,
          Key: key,
          ...LockRequests.release(request, clock.unsafeCurrentTimeMillis(), ttlRetentionMs),
          ReturnValuesOnConditionCheckFailure: "ALL_OLD"
        }, clock),
        (response): Effect.Effect<LockStore.ReleaseResult, LockStoreError> =>
          response._tag === "Ok" ? released : Effect.map(
            context.conflicting("release", key, response.item, true, clock),
            (current) => LockRequests.releaseConflict(response.attempts, current)
          )
      ))

  const forceRelease = (
    name: string,
    holder: LockStore.ForceReleaseHolder | undefined
  ): Effect.Effect<Option.Option<LockRecord>, LockStoreError> =>
    context.keyed("forceRelease", name, (key, clock) =>
      Effect.flatMap(
        context.update(Calls.calls.forceRelease, {
          TableName: tableName,
          Key: key,
          ...LockRequests.forceRelease(holder, clock.unsafeCurrentTimeMillis(), ttlRetentionMs),
          ReturnValues: "ALL_OLD"
        }, clock),
        (response) =>
          response._tag === "ConditionFailed"
            ? Effect.succeedNone
            : Effect.map(context.decode("forceRelease", response.output.Attributes ?? {}), Option.some)
      )).pipe(Effect.withSpan("DynamoLockStore.forceRelease", StoreContext.operatorSpan(name)))

  return { renew, release, forceRelease }
}
