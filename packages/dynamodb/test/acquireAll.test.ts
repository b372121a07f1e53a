/**
 * The DynamoDB store's `tryAcquireAll` on the wire: what it sends for a take (one transaction and one batch read, in
 * either key layout), what a server without transactions costs (one request, then none), and what an answer lost in
 * flight, or an item the transaction can not write, leaves the caller to do. The conformance suite checks what the
 * take does to the locks.
 *
 * The lock's time is the TestClock at the wall clock; the request timeout and the waits for the proxy run in real
 * time.
 */
import type { Vitest } from "@effect/vitest"
import { describe, expect, layer } from "@effect/vitest"
import * as Lock from "@leasehold/lock/Lock"
import * as LockStore from "@leasehold/lock/LockStore"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import { Effect, Fiber, Option } from "effect"
import { inject } from "vitest"
import { forkChild, TestClock } from "./effectLine.js"
import { acquireRequest, counted, makeTableAndStore, outcome, putRaw, unique } from "./support.js"

/** Sets the TestClock to the wall clock, so that leases and TTLs are realistic. */
const clockNow = Effect.suspend(() => TestClock.setTime(Date.now()))

const freeRequests = (count: number) =>
  Array.from(
    { length: count },
    (_, i) => acquireRequest(unique(`together-${i}`), { takeover: { _tag: "Observed", stale: undefined } })
  )

const tryAcquireAllOf = (store: LockStore.LockStore) => {
  const tryAcquireAll = store.tryAcquireAll
  if (tryAcquireAll === undefined) throw new Error("the DynamoDB store has tryAcquireAll")
  return tryAcquireAll
}

layer(DynamoServer.layerDynalite)("tryAcquireAll on dynalite, which has no transactions", (it) => {
  it.effect("answers Unsupported, writing nothing, and after the first answer without asking the server", () =>
    Effect.gen(function*() {
      const { store } = yield* makeTableAndStore()
      const requests = freeRequests(2)
      const first = yield* counted(tryAcquireAllOf(store)({ requests }))
      expect(first.result).toEqual({ _tag: "Unsupported" })
      expect(first.requests).toEqual({ TransactWriteItems: 1 })
      const again = yield* counted(tryAcquireAllOf(store)({ requests }))
      expect(again.result).toEqual({ _tag: "Unsupported" })
      expect(again.requests).toEqual({})
      for (const { name } of requests) expect(Option.isNone(yield* store.inspect(name))).toBe(true)
    }).pipe(Effect.scoped))
})

const onDynamoDBLocal = (it: Vitest.MethodsNonLive<DynamoServer.DynamoServer>) => {
  it.effect("takes free locks with one TransactWriteItems and one BatchGetItem, in either key layout", () =>
    Effect.gen(function*() {
      yield* clockNow
      for (const layout of [{}, { sortKey: "name" }]) {
        const { store } = yield* makeTableAndStore(layout)
        const requests = freeRequests(3)
        const { requests: sent, result } = yield* counted(tryAcquireAllOf(store)({ requests }))
        expect(sent).toEqual({ TransactWriteItems: 1, BatchGetItem: 1 })
        expect(result._tag).toBe("Acquired")
        if (result._tag !== "Acquired") return
        expect(result.records.map((record) => [record.name, record.owner])).toEqual(
          requests.map((request) => [request.name, request.owner])
        )
      }
    }).pipe(Effect.scoped))

  it.effect("is the path of Lock.withLocks with transaction, whose locks are then given back one by one", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { store } = yield* makeTableAndStore()
      const names = freeRequests(3).map((request) => request.name)
      const { requests: sent } = yield* counted(
        Lock.withLocks(names, Effect.void, { transaction: true }).pipe(
          Effect.provideService(LockStore.LockStore, store)
        )
      )
      expect(sent).toEqual({ TransactWriteItems: 1, BatchGetItem: 1, UpdateItem: 3 })
      for (const name of names) expect(Option.getOrThrow(yield* store.inspect(name)).owner).toBeUndefined()
    }).pipe(Effect.scoped))

  it.effect("a take whose answer is lost fails with mayHaveApplied, unretried, and its write did land", () =>
    Effect.gen(function*() {
      yield* clockNow
      const server = yield* DynamoServer.DynamoServer
      const { store } = yield* makeTableAndStore({ requestTimeout: "500 millis", retryBaseDelay: "100 millis" })
      const requests = freeRequests(2)
      yield* server.resetRequests
      yield* server.pause
      const fiber = yield* forkChild(outcome(tryAcquireAllOf(store)({ requests })))
      yield* server.awaitPending(1)
      // The request goes on to the server, and the pause that follows at once holds its answer.
      yield* Effect.andThen(server.resume, server.pause)
      const taken = yield* Fiber.join(fiber)
      yield* server.resume
      expect(taken._tag).toBe("Failure")
      if (taken._tag !== "Failure") return
      expect(taken.failure).toMatchObject({ _tag: "LockStoreError", operation: "tryAcquireAll", mayHaveApplied: true })
      expect(Object.fromEntries(yield* server.requests)).toEqual({ TransactWriteItems: 1 })
      // The caller gives back by owner what the write took.
      for (const { name, owner } of requests) expect(Option.getOrThrow(yield* store.inspect(name)).owner).toBe(owner)
    }).pipe(Effect.scoped))

  it.effect("an item whose fence is not a number refuses the take, which wrote nothing", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { store, tableName } = yield* makeTableAndStore()
      const requests = freeRequests(2)
      yield* putRaw(tableName, { key: { S: requests[1]!.name }, fence: { S: "seven" } })
      const taken = yield* outcome(tryAcquireAllOf(store)({ requests }))
      expect(taken._tag).toBe("Failure")
      if (taken._tag !== "Failure") return
      expect(taken.failure).toMatchObject({ operation: "tryAcquireAll", retryable: false, mayHaveApplied: false })
      expect(Option.isNone(yield* store.inspect(requests[0]!.name))).toBe(true)
    }).pipe(Effect.scoped))
}

// One DynamoDB Local for the whole run, started by test/globalSetup.ts; this file puts its own proxy in front.
const local = inject("dynamodbLocal")

describe.skipIf(!local.run)(
  local.run ? `DynamoDB Local (${local.engine})` : `DynamoDB Local: SKIPPED (${local.reason})`,
  () => {
    layer(DynamoServer.layerEndpoint(local.run ? local.endpoint : "http://127.0.0.1:1"))(
      "tryAcquireAll on DynamoDB Local",
      (it) => onDynamoDBLocal(it)
    )
  }
)
