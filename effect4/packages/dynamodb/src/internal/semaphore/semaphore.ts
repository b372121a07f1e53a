/**
 * A semaphore holder's writes and the semaphore's read: `renewPermits` extends one holder's lease, `releasePermits`
 * removes the holder and frees its permits, each one conditional write on the holder's fence; `inspectSemaphore`
 * reads the item. The acquiring write is in `semaphoreAcquire.ts`.
 *
 * @internal
 */
import type { ItemMap } from "@leasehold/core/dynamodb/AttributeValue"
import * as Calls from "@leasehold/core/dynamodb/Calls"
import * as LockExpressions from "@leasehold/core/dynamodb/LockExpressions"
import * as SemaphoreExpressions from "@leasehold/core/dynamodb/SemaphoreExpressions"
import * as SemaphoreWrites from "@leasehold/core/dynamodb/SemaphoreWrites"
import { LockStoreError } from "@leasehold/lock/LockError"
import type * as LockStore from "@leasehold/lock/LockStore"
import type { SemaphoreRecord } from "@leasehold/lock/SemaphoreRecord"
import * as SemaphoreStore from "@leasehold/lock/SemaphoreStore"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as StoreContext from "../store/storeContext.js"
import * as SemaphoreAcquire from "./semaphoreAcquire.js"

const { lost, notHeld, released } = SemaphoreWrites

const refuse = (operation: "renewPermits" | "releasePermits", message: string) =>
  Effect.fail(new LockStoreError({ operation, retryable: false, mayHaveApplied: false, message }))

/** @internal */
export const make = (context: StoreContext.StoreContext): SemaphoreStore.SemaphoreOperations => {
  const { tableName, ttlRetentionMs } = context

  const renewPermits = (request: SemaphoreStore.RenewPermitsRequest) =>
    context.keyedSemaphore("renewPermits", request.name, (key, clock) => {
      const problem = SemaphoreStore.renewProblem(request)
      if (problem !== undefined) return refuse("renewPermits", problem)
      const now = clock.currentTimeMillisUnsafe()
      const ttl = LockExpressions.ttlAt(now + request.leaseMs, ttlRetentionMs)
      const renewed = (item: ItemMap, superseded: boolean) =>
        Effect.map(
          context.decodeSemaphore("renewPermits", item),
          (record) => SemaphoreWrites.renewed(request, record, superseded)
        )
      return Effect.flatMap(
        context.update(Calls.calls.renewPermits, {
          TableName: tableName,
          Key: key,
          ...SemaphoreExpressions.renew(request, now, ttl),
          ReturnValues: "ALL_NEW",
          ReturnValuesOnConditionCheckFailure: "ALL_OLD"
        }, clock),
        (response): Effect.Effect<LockStore.RenewResult, LockStoreError> => {
          if (response._tag === "Ok") return renewed(response.output.Attributes ?? {}, false)
          // An unordered renew fails only when the permits are gone (released, or removed as expired). An ordered one
          // also when this renew (a retried request whose first attempt applied) or a newer one of the holder applied.
          if (request.sequence === undefined) return Effect.succeed(lost)
          return Effect.flatMap(
            context.oldItem("renewPermits", key, response.item, true, clock),
            (item) => item === undefined ? Effect.succeed(lost) : renewed(item, true)
          )
        }
      )
    })

  const releasePermits = (request: SemaphoreStore.ReleasePermitsRequest) =>
    context.keyedSemaphore("releasePermits", request.name, (key, clock) => {
      const problem = SemaphoreStore.releaseProblem(request)
      if (problem !== undefined) return refuse("releasePermits", problem)
      const ttl = LockExpressions.ttlAt(clock.currentTimeMillisUnsafe(), ttlRetentionMs)
      return Effect.flatMap(
        context.update(Calls.calls.releasePermits, {
          TableName: tableName,
          Key: key,
          ...SemaphoreExpressions.release(request, ttl),
          ReturnValuesOnConditionCheckFailure: "ALL_OLD"
        }, clock),
        (response): Effect.Effect<LockStore.ReleaseResult, LockStoreError> => {
          if (response._tag === "Ok") return Effect.succeed(released)
          if (response.attempts === 1) return Effect.succeed(notHeld)
          // A retried request: if the holder is gone, the earlier attempt was applied and its response lost.
          return Effect.flatMap(
            context.oldItem("releasePermits", key, response.item, true, clock),
            (item) =>
              item === undefined ? Effect.succeed(released) : Effect.map(
                context.decodeSemaphore("releasePermits", item),
                (current) => SemaphoreWrites.releaseRetried(current, request.owner)
              )
          )
        }
      )
    })

  const inspectSemaphore = (name: string): Effect.Effect<Option.Option<SemaphoreRecord>, LockStoreError> =>
    context.keyedSemaphore("inspectSemaphore", name, (key, clock) =>
      Effect.flatMap(
        context.readItem("inspectSemaphore", key, clock),
        (item) =>
          item === undefined
            ? Effect.succeedNone
            : Effect.map(context.decodeSemaphore("inspectSemaphore", item), Option.some)
      )).pipe(Effect.withSpan("DynamoLockStore.inspectSemaphore", StoreContext.operatorSpan(name)))

  return { tryAcquirePermits: SemaphoreAcquire.make(context), renewPermits, releasePermits, inspectSemaphore }
}
