/**
 * The writes on a held lock: `renew` extends the lease, `release` frees it for its owner, `forceRelease` frees it for
 * an operator, whoever holds it. Each is one conditional write (built by the core's `LockRequests`); a failed
 * condition answers with the current holder. A retry whose condition failed after an attempt that may have been
 * applied is judged by the core: the earlier attempt may be what failed it, and a force release that can not tell
 * whether it removed the holder says so (`LockStoreError.mayHaveApplied`) rather than "nothing was removed".
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
import * as EffectLine from "../effectLine.js"
import * as StoreContext from "../store/storeContext.js"

/**
 * A failed read of what a force release came to leaves the release's own outcome open, whatever the read's error says
 * of the read.
 */
const outcomeOpen = (error: LockStoreError): LockStoreError =>
  error.mayHaveApplied !== false ? error : new LockStoreError({
    operation: error.operation,
    retryable: error.retryable,
    message: error.message,
    mayHaveApplied: true,
    ...(error.cause === undefined ? {} : { cause: error.cause })
  })

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
          ...LockRequests.renew(request, EffectLine.currentTimeMillisUnsafe(clock), ttlRetentionMs),
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
          ...LockRequests.release(request, EffectLine.currentTimeMillisUnsafe(clock), ttlRetentionMs),
          ReturnValues: "ALL_NEW",
          ReturnValuesOnConditionCheckFailure: "ALL_OLD"
        }, clock),
        (response): Effect.Effect<LockStore.ReleaseResult, LockStoreError> =>
          response._tag === "Ok"
            // The lock is free either way: a record that does not decode only leaves the answer without it.
            ? context.decode("release", response.output.Attributes ?? {}).pipe(
              Effect.map((record): LockStore.ReleaseResult => ({ _tag: "Released", record })),
              Effect.orElseSucceed(() => LockRequests.released)
            )
            : Effect.map(
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
          ...LockRequests.forceRelease(holder, EffectLine.currentTimeMillisUnsafe(clock), ttlRetentionMs),
          ReturnValues: "ALL_OLD",
          ReturnValuesOnConditionCheckFailure: "ALL_OLD"
        }, clock),
        (response): Effect.Effect<Option.Option<LockRecord>, LockStoreError> => {
          if (response._tag === "Ok") {
            return Effect.map(context.decode("forceRelease", response.output.Attributes ?? {}), Option.some)
          }
          if (LockRequests.forceReleaseConflict(response.earlierMayHaveApplied)._tag === "NotHeld") {
            return Effect.succeedNone
          }
          return Effect.flatMap(
            Effect.mapError(context.conflicting("forceRelease", key, response.item, true, clock), outcomeOpen),
            (current) => {
              const retried = LockRequests.forceReleaseRetried(tableName, holder, current)
              return retried._tag === "NotHeld" ? Effect.succeedNone : Effect.fail(
                new LockStoreError({
                  operation: "forceRelease",
                  retryable: false,
                  mayHaveApplied: true,
                  message: retried.message
                })
              )
            }
          )
        }
      )).pipe(Effect.withSpan("DynamoLockStore.forceRelease", StoreContext.operatorSpan(name)))

  return { renew, release, forceRelease }
}
