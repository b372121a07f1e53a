/**
 * Writes whose answer is lost: the server applies the write, the client never hears of it, and the store's retry then
 * meets what the first attempt did. The test proxy plays the network: it lets the request through, holds the answer
 * until the client gives up on it (its request timeout) and sends the retry, and lets the retry through. On dynalite,
 * and on DynamoDB Local, which returns the item that failed a condition (dynalite's conflicts read it).
 *
 * The lock's time is the TestClock at the wall clock; the request timeout, the backoff and the waits for the proxy run
 * in real time.
 */
import type { Vitest } from "@effect/vitest"
import { describe, expect, layer } from "@effect/vitest"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import { Effect, Fiber, Option } from "effect"
import { inject } from "vitest"
import { forkChild, TestClock } from "./effectLine.js"
import { acquireRequest, inRealTime, makeStore, makeTable, outcome, unique } from "./support.js"

/** Sets the TestClock to the wall clock, so that leases and TTLs are realistic. */
const clockNow = Effect.suspend(() => TestClock.setTime(Date.now()))

/** Polls in real time until the server has seen `count` UpdateItem requests, for at most 5 s. */
const updatesSeen = (count: number) =>
  Effect.gen(function*() {
    const server = yield* DynamoServer.DynamoServer
    for (let i = 0; i < 500; i++) {
      if (((yield* server.requests).get("UpdateItem") ?? 0) >= count) return
      yield* Effect.sleep("10 millis")
    }
    return yield* Effect.die(`the server did not see ${count} UpdateItem requests in 5 s`)
  }).pipe(inRealTime)

/**
 * Runs `write`, one UpdateItem that the store retries, with the answer to its first attempt lost; returns how it
 * ended.
 */
const firstAnswerLost = <A, E, R>(write: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const server = yield* DynamoServer.DynamoServer
    yield* server.resetRequests
    yield* server.pause
    const fiber = yield* forkChild(outcome(write))
    yield* server.awaitPending(1)
    // The request goes on to the server, and the pause that follows at once holds its answer: the server can not
    // answer between the two.
    yield* Effect.andThen(server.resume, server.pause)
    // The retry has reached the proxy: the client gave up on the first answer, which the proxy dropped with it.
    yield* updatesSeen(2)
    yield* server.resume
    return yield* Fiber.join(fiber)
  })

const lostAnswers = (it: Vitest.MethodsNonLive<DynamoServer.DynamoServer>) => {
  /** A store whose requests time out soon, so that a lost answer is retried within the test. */
  const storeAndLock = Effect.gen(function*() {
    yield* clockNow
    const { tableName } = yield* makeTable()
    const store = yield* makeStore(tableName, { requestTimeout: "500 millis", retryBaseDelay: "100 millis" })
    const name = unique("stuck")
    const acquired = yield* store.tryAcquire(acquireRequest(name, { holder: "worker-a" }))
    if (acquired._tag !== "Acquired") return yield* Effect.die(`not acquired: ${acquired._tag}`)
    return { store, name, record: acquired.record }
  })

  it.effect("a force release of the holder shown, applied with its answer lost, says its outcome is unknown", () =>
    Effect.gen(function*() {
      const { name, record, store } = yield* storeAndLock
      const forced = yield* firstAnswerLost(store.forceRelease(name, { owner: record.owner!, fence: record.fence }))

      // Not "nothing was removed": the retry's condition failed on what the first attempt did, and the lock, free
      // with the holder's fence, reads the same as if the holder had released it itself.
      expect(forced._tag).toBe("Failure")
      if (forced._tag === "Success") return
      expect(forced.failure).toMatchObject({ _tag: "LockStoreError", operation: "forceRelease", mayHaveApplied: true })
      expect(forced.failure.message).toContain(`held by owner ${record.owner} (fence ${record.fence})`)
      expect(forced.failure.message).toContain(`the retry found the lock free (fence ${record.fence})`)
      expect(forced.failure.message).toContain("whether this call removed that holder can not be told")

      // The first attempt did remove it.
      const after = Option.getOrThrow(yield* store.inspect(name))
      expect(after.owner).toBeUndefined()
      expect(after.fence).toBe(record.fence)
      expect(after.version).toBe(record.version + 1)
    }).pipe(Effect.scoped))

  it.effect("a force release of whoever holds the lock, applied with its answer lost, says its outcome is unknown", () =>
    Effect.gen(function*() {
      const { name, record, store } = yield* storeAndLock
      const forced = yield* firstAnswerLost(store.forceRelease(name))

      expect(forced._tag).toBe("Failure")
      if (forced._tag === "Success") return
      expect(forced.failure).toMatchObject({ _tag: "LockStoreError", operation: "forceRelease", mayHaveApplied: true })
      expect(forced.failure.message).toContain(`the retry found the lock free (fence ${record.fence})`)
      expect(forced.failure.message).toContain("whether this call removed a holder, and which, can not be told")
      expect(Option.getOrThrow(yield* store.inspect(name)).owner).toBeUndefined()
    }).pipe(Effect.scoped))
}

layer(DynamoServer.layerDynalite)("lost answers, on dynalite", (it) => lostAnswers(it))

// One DynamoDB Local for the whole run, started by test/globalSetup.ts; this file puts its own proxy in front.
const local = inject("dynamodbLocal")

describe.skipIf(!local.run)(
  local.run ? `DynamoDB Local (${local.engine})` : `DynamoDB Local: SKIPPED (${local.reason})`,
  () => {
    layer(DynamoServer.layerEndpoint(local.run ? local.endpoint : "http://127.0.0.1:1"))(
      "lost answers, on DynamoDB Local",
      (it) => lostAnswers(it)
    )
  }
)
