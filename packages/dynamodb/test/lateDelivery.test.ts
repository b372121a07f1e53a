/**
 * Writes that reach DynamoDB after their sender gave up on them (dynalite behind the test proxy, which keeps a request
 * whose client aborted it and delivers it later, as bytes already on the wire are): none moves a lease back.
 *
 * The lock's time is the TestClock, so the leases the requests carry are exact; the proxy and the waits for the server
 * run in real time.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Lock from "@leasehold/lock/Lock"
import * as LockStore from "@leasehold/lock/LockStore"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import { Effect, Fiber, Layer, Option } from "effect"
import type { Scope } from "effect"
import { forkChild, TestClock, withRandomFixed } from "./effectLine.js"
import { inRealTime, makeStore, makeTable, outcome, unique } from "./support.js"

const options = { lease: "3 seconds", heartbeat: "1 second", safetyMargin: "500 millis" } satisfies Lock.LockOptions

const withServer = <A, E>(self: Effect.Effect<A, E, DynamoServer.DynamoServer | Scope.Scope>) =>
  Effect.flatMap(Layer.build(DynamoServer.layerDynalite), (context) => Effect.provide(self, context))

/** The TestClock at the wall clock, in whole multiples of 4 ms (exact in the TestClock's nanoseconds). */
const clockNow = Effect.gen(function*() {
  const now = Date.now()
  const t0 = now - (now % 4)
  yield* TestClock.setTime(t0)
  return t0
})

/** Polls (in real time) until `check` holds of what `read` returns, for at most 5 s. */
const eventually = <A, E, R>(read: Effect.Effect<A, E, R>, check: (a: A) => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 500; i++) {
      const value = yield* read
      if (check(value)) return value
      yield* Effect.sleep("10 millis")
    }
    return yield* Effect.die("the server did not get there in 5 s")
  }).pipe(inRealTime)

describe("writes delivered late, on dynalite", () => {
  it.effect("a data update given up on under a timeout, delivered after the next renew, moves nothing back", () =>
    withServer(Effect.gen(function*() {
      const server = yield* DynamoServer.DynamoServer
      const t0 = yield* clockNow
      const { tableName } = yield* makeTable()
      const store = yield* makeStore(tableName, { maxRetries: 0, requestTimeout: "1 minute" })
      const direct = yield* makeStore(tableName, {
        clientConfig: { ...server.clientConfig, endpoint: server.serverEndpoint }
      })
      const name = unique("report")
      const record = Effect.map(direct.inspect(name), Option.getOrThrow)

      const lease = yield* Lock.acquire(name, { ...options, data: "v1" }).pipe(
        Effect.provideService(LockStore.LockStore, store)
      )
      // The update reaches the network and is given up on: the proxy keeps it.
      yield* server.pauseWith("late")
      const update = yield* forkChild(lease.updateData("v2").pipe(Effect.timeout("100 millis"), outcome))
      yield* server.awaitPending(1).pipe(inRealTime)
      yield* TestClock.adjust(100)
      expect((yield* Fiber.join(update))._tag).toBe("Failure")
      yield* server.resume

      // The heartbeat's next renew goes out and is applied.
      yield* TestClock.adjust(900)
      const renewed = yield* eventually(record, (current) => current.leaseUntil > t0 + 3_000)
      expect(renewed.data).toBe("v1")

      // The update lands now, built at t0: it would end the lease at t0 + 3 s and set the data.
      yield* server.deliverLate.pipe(inRealTime)
      const after = yield* record
      expect(after.leaseUntil).toBe(renewed.leaseUntil)
      expect(after.version).toBe(renewed.version)
      expect(after.data).toBe("v1")
      expect(yield* lease.isHeld).toBe(true)
    })).pipe(withRandomFixed(1), Effect.scoped))
})
