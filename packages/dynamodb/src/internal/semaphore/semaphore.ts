/**
 * A semaphore holder's writes and the semaphore's read: `renewPermits` extends one holder's lease, `releasePermits`
 * removes the holder and frees its permits, each one conditional write on the holder's fence; `inspectSemaphore`
 * reads the item. The acquiring write is in `semaphoreAcquire.ts`, a waiter's reservation in `semaphoreReserve.ts`.
 *
 * @internal
 */
import type { ItemMap } from "@leasehold/core/dynamodb/AttributeValue"
import * as Calls from "@leasehold/core/dynamodb/Calls"
import * as LockExpressions from "@leasehold/core/dynamodb/LockExpressions"
import * as SemaphoreExpressions from "@leasehold/core/dynamodb/SemaphoreExpressions"
import * as SemaphoreItem from "@leasehold/core/dynamodb/SemaphoreItem"
import * as SemaphoreWrites from "@leasehold/core/dynamodb/SemaphoreWrites"
import { LockStoreError } from "@leasehold/lock/LockError"
import type * as LockStore from "@leasehold/lock/LockStore"
import type { SemaphoreRecord } from "@leasehold/lock/SemaphoreRecord"
import * as SemaphoreStore from "@leasehold/lock/SemaphoreStore"
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as EffectLine from "../effectLine.js"
import * as StoreContext from "../store/storeContext.js"
import * as SemaphoreAcquire from "./semaphoreAcquire.js"
import * as SemaphoreReserve from "./semaphoreReserve.js"
import * as Unpin from "./unpin.js"

const refuse = (operation: "renewPermits" | "releasePermits", message: string) =>
  Effect.fail(new LockStoreError({ operation, retryable: false, mayHaveApplied: false, message }))

/** @internal */
export const make = (context: StoreContext.StoreContext): SemaphoreStore.SemaphoreOperations => {
  const { tableName, ttlRetentionMs } = context

  /** The semaphore's item that failed a holder's condition, decoded; `undefined` for no item. */
  const holderItem = (
    operation: "renewPermits" | "releasePermits",
    key: ItemMap,
    item: ItemMap | undefined,
    clock: Clock.Clock
  ): Effect.Effect<SemaphoreRecord | undefined, LockStoreError> =>
    Effect.flatMap(
      context.oldItem(operation, key, item, true, clock),
      (old) => old === undefined ? Effect.succeed(undefined) : context.decodeSemaphore(operation, old)
    )

  const renewPermits = (request: SemaphoreStore.RenewPermitsRequest) =>
    context.keyedSemaphore("renewPermits", request.name, (key, clock) => {
      const problem = SemaphoreStore.renewProblem(request)
      if (problem !== undefined) return refuse("renewPermits", problem)
      const now = EffectLine.currentTimeMillisUnsafe(clock)
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
          const conflict = SemaphoreWrites.renewConflict(request)
          if (conflict._tag === "Answer") return Effect.succeed(conflict.result)
          return Effect.map(
            holderItem("renewPermits", key, response.item, clock),
            (current) => SemaphoreWrites.renewRead(request, current)
          )
        }
      )
    })

  /** After a release: the item it left, unpinned if the last holder under a session has gone (see `unpin.ts`). */
  const unpinAfterRelease = (key: ItemMap, item: ItemMap | undefined, clock: Clock.Clock): Effect.Effect<void> =>
    item === undefined || item[SemaphoreItem.attributes.pin] === undefined
      ? Effect.void
      : Effect.flatMap(
        Effect.option(context.decodeSemaphore("releasePermits", item)),
        (semaphore) =>
          Option.isSome(semaphore) ? Unpin.ifStale(context, key, item, semaphore.value, clock) : Effect.void
      )

  const releasePermits = (request: SemaphoreStore.ReleasePermitsRequest) =>
    context.keyedSemaphore("releasePermits", request.name, (key, clock) => {
      const problem = SemaphoreStore.releaseProblem(request)
      if (problem !== undefined) return refuse("releasePermits", problem)
      const ttl = LockExpressions.ttlAt(EffectLine.currentTimeMillisUnsafe(clock), ttlRetentionMs)
      return Effect.flatMap(
        context.update(Calls.calls.releasePermits, {
          TableName: tableName,
          Key: key,
          ...SemaphoreExpressions.release(request, ttl),
          ReturnValues: "ALL_NEW",
          ReturnValuesOnConditionCheckFailure: "ALL_OLD"
        }, clock),
        (response): Effect.Effect<LockStore.ReleaseResult, LockStoreError> => {
          if (response._tag === "Ok") {
            return Effect.as(unpinAfterRelease(key, response.output.Attributes, clock), SemaphoreWrites.released)
          }
          const conflict = SemaphoreWrites.releaseConflict(response.attempts)
          if (conflict._tag === "Answer") return Effect.succeed(conflict.result)
          return Effect.map(
            holderItem("releasePermits", key, response.item, clock),
            (current) => SemaphoreWrites.releaseRetried(current, request.owner)
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

  return {
    tryAcquirePermits: SemaphoreAcquire.make(context),
    renewPermits,
    releasePermits,
    reservePermits: SemaphoreReserve.make(context),
    inspectSemaphore
  }
}
