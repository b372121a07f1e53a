/**
 * `tryAcquireAll`: free locks taken in one `TransactWriteItems` of the acquiring writes a single `tryAcquire` of a free
 * lock sends (the core's `AcquireAll`), then read back with one consistent `BatchGetItem`, since a transaction returns
 * no attributes. A free lock is taken over from nobody, so the clock-skew guard has nothing to check. A server without
 * transactions (dynalite) answers `Unsupported` once; the store remembers it and asks no more.
 *
 * @internal
 */
import { BatchGetItemCommand, TransactWriteItemsCommand } from "@aws-sdk/client-dynamodb"
import * as Checked from "@leasehold/core/Checked"
import * as AcquireAll from "@leasehold/core/dynamodb/AcquireAll"
import type { ItemMap } from "@leasehold/core/dynamodb/AttributeValue"
import * as Calls from "@leasehold/core/dynamodb/Calls"
import * as LockChecks from "@leasehold/core/store/LockChecks"
import { LockStoreError } from "@leasehold/lock/LockError"
import type { LockRecord } from "@leasehold/lock/LockRecord"
import type * as LockStore from "@leasehold/lock/LockStore"
import { isBackgroundClock } from "@leasehold/lock/LockStore"
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as EffectLine from "../effectLine.js"
import type * as StoreContext from "../store/storeContext.js"
import * as Transport from "../transport/transport.js"

/** What the transaction came to on the wire: applied, or refused as a whole by the server (with what it threw). */
type Sent =
  | { readonly _tag: "Written" }
  | { readonly _tag: "Rejected"; readonly rejection: AcquireAll.Rejection; readonly error: unknown }

const written: Sent = { _tag: "Written" }

const unsupported: LockStore.AcquireAllResult = { _tag: "Unsupported" }

const refused: LockStore.AcquireAllResult = { _tag: "Refused" }

/**
 * A server's refusal of the whole transaction is an answer, not a failure for the transport to judge: it applied
 * nothing, and a cancellation's reasons say why.
 */
const sentOrRejected = (error: unknown): Sent => {
  const rejection = AcquireAll.rejection(error)
  if (rejection === undefined) throw error
  return { _tag: "Rejected", rejection, error }
}

const refusal = (message: string) =>
  new LockStoreError({ operation: "tryAcquireAll", retryable: false, mayHaveApplied: false, message })

/** A failure once the transaction applied: the locks are the caller's, which gives them back by owner. */
const afterWrite = (error: LockStoreError) =>
  new LockStoreError({
    operation: "tryAcquireAll",
    retryable: error.retryable,
    mayHaveApplied: true,
    message: AcquireAll.afterWriteMessage(error.message),
    cause: error
  })

/** @internal */
export const make = (context: StoreContext.StoreContext): NonNullable<LockStore.LockStore["tryAcquireAll"]> => {
  const { client, layout, tableName, transport, ttlRetentionMs } = context
  // A server without transactions does not grow them while the store lives.
  let knownUnsupported = false

  const send = (input: ReturnType<typeof AcquireAll.transaction>, clock: Clock.Clock) =>
    Transport.send(
      transport,
      Calls.calls.tryAcquireAll,
      (probe, abortSignal): Promise<Sent> =>
        client.send(probe(new TransactWriteItemsCommand(input)), { abortSignal }).then(() => written, sentOrRejected),
      clock
    )

  /** The items of `keys`, by name: one consistent batch read, and another of the keys it left unprocessed, if any. */
  const readBack = (keys: ReadonlyArray<ItemMap>, clock: Clock.Clock) => {
    const items = new Map<string, ItemMap>()
    const background = isBackgroundClock(clock)
    const round = (
      pending: ReadonlyArray<ItemMap>,
      rounds: number
    ): Effect.Effect<ReadonlyMap<string, ItemMap>, LockStoreError> =>
      Effect.flatMap(
        Transport.send(
          transport,
          Calls.calls.readAcquiredAll,
          (probe, abortSignal) =>
            client.send(probe(new BatchGetItemCommand(AcquireAll.batchRead(tableName, pending))), { abortSignal }),
          clock
        ),
        (response) => {
          // A read has no condition to fail: every answer is `Ok`.
          const output = response._tag === "Ok" ? response.output : undefined
          for (const item of output?.Responses?.[tableName] ?? []) {
            const name = layout.nameOf(item)
            if (name !== undefined) items.set(name, item)
          }
          const left = output?.UnprocessedKeys?.[tableName]?.Keys ?? []
          if (left.length === 0) return Effect.succeed(items)
          if (rounds > transport.maxRetries) {
            return Effect.fail(
              new LockStoreError({
                operation: "tryAcquireAll",
                retryable: true,
                mayHaveApplied: true,
                message: AcquireAll.unreadMessage(tableName, left.length, rounds)
              })
            )
          }
          return Effect.andThen(Transport.backoff(transport, rounds + 1, background), round(left, rounds + 1))
        }
      )
    return round(keys, 1)
  }

  /** The records the transaction wrote, in the order of the requests, each showing its request's owner. */
  const records = (
    request: LockStore.AcquireAllRequest,
    locks: ReadonlyArray<AcquireAll.Keyed>,
    clock: Clock.Clock
  ): Effect.Effect<LockStore.AcquireAllResult, LockStoreError> =>
    Effect.flatMap(
      Effect.mapError(
        Effect.flatMap(
          readBack(locks.map((lock) => lock.key), clock),
          (items) => Effect.forEach(items.values(), (item) => context.decode("tryAcquireAll", item))
        ),
        afterWrite
      ),
      (decoded) => {
        const found = AcquireAll.acquired(
          request.requests,
          new Map(decoded.map((record): [string, LockRecord] => [record.name, record]))
        )
        return found._tag === "Acquired"
          ? Effect.succeed(found)
          : Effect.fail(
            new LockStoreError({
              operation: "tryAcquireAll",
              retryable: false,
              mayHaveApplied: true,
              message: found.message
            })
          )
      }
    )

  return (request) =>
    Effect.clockWith((clock): Effect.Effect<LockStore.AcquireAllResult, LockStoreError> => {
      const problem = LockChecks.acquireAllProblem(request)
      if (problem !== undefined) return Effect.fail(refusal(problem))
      const locks: Array<AcquireAll.Keyed> = []
      for (const one of request.requests) {
        const key = layout.keyOf(one.name)
        if (!Checked.isOk(key)) return Effect.fail(refusal(key.message))
        locks.push({ request: one, key: key.value })
      }
      if (knownUnsupported) return Effect.succeed(unsupported)
      const now = EffectLine.currentTimeMillisUnsafe(clock)
      return Effect.flatMap(
        send(AcquireAll.transaction(tableName, locks, now, ttlRetentionMs), clock),
        (response): Effect.Effect<LockStore.AcquireAllResult, LockStoreError> => {
          // A transaction's failed condition is a cancellation, never the single write's refusal; were it one, it
          // would mean the same.
          if (response._tag === "ConditionFailed") return Effect.succeed(refused)
          const sent = response.output
          if (sent._tag === "Written") return records(request, locks, clock)
          const { error, rejection } = sent
          switch (rejection._tag) {
            case "Unsupported":
              knownUnsupported = true
              return Effect.succeed(unsupported)
            case "Refused":
              return Effect.succeed(refused)
            case "Canceled":
              return Effect.fail(
                new LockStoreError({
                  operation: "tryAcquireAll",
                  retryable: rejection.retryable,
                  mayHaveApplied: false,
                  message: AcquireAll.canceledMessage(tableName, rejection),
                  cause: error
                })
              )
          }
        }
      )
    })
}
