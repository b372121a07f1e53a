import { describe, expect, it } from "@effect/vitest"
import { type Lease, Lock, LockStore } from "@leasehold/lock"
import { Clock, Deferred, Effect, Fiber, Layer, Option, Stream } from "effect"
import { forkChild, poll, TestClock } from "./effectLine.js"
import { settle, sharedMemory } from "./support.js"

/**
 * A process over `backing` whose calls of the operations in `silent` never answer (a server that stopped answering),
 * and which records when each call was made.
 */
const processOver = (backing: LockStore.LockStore) => {
  const silent = new Set<LockStore.OperationName>()
  const calls: Array<{ readonly operation: LockStore.OperationName; readonly at: number }> = []
  const service = LockStore.intercept(backing, (operation, call) =>
    Effect.flatMap(Clock.currentTimeMillis, (at) => {
      calls.push({ operation, at })
      return silent.has(operation) ? Effect.never : call
    }))
  return { silent, calls, layer: Layer.succeed(LockStore.LockStore, service) }
}

describe("wait bounds the whole acquire, whatever the store does", () => {
  it.effect("a store that does not answer: the caller hears back at wait + 1 s", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const process = processOver(backing)
      process.silent.add("tryAcquire")
      const fiber = yield* forkChild(
        Lock.withLock("x", Effect.void, { wait: "500 millis" }).pipe(Effect.provide(process.layer))
      )
      yield* TestClock.adjust("1499 millis")
      expect(Option.isNone(yield* poll(fiber))).toBe(true)
      yield* TestClock.adjust("1 millis")
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error).toMatchObject({ _tag: "LockNotAcquired", waitedMs: 1_500, unansweredAfterMs: 1_000 })
      expect(error.message).toContain("had not answered")
    }))

  it.effect("the default single attempt is bounded the same way", () =>
    Effect.gen(function*() {
      const process = processOver(sharedMemory())
      process.silent.add("tryAcquire")
      const fiber = yield* forkChild(Lock.withLock("x", Effect.void).pipe(Effect.provide(process.layer)))
      yield* TestClock.adjust("1 second")
      expect(yield* Effect.flip(Fiber.join(fiber))).toMatchObject({ _tag: "LockNotAcquired", unansweredAfterMs: 1_000 })
    }))

  it.effect("interrupting an acquire stuck on a silent store returns at once; the cleanup goes on in the background", () =>
    Effect.gen(function*() {
      const process = processOver(sharedMemory())
      process.silent.add("tryAcquire")
      process.silent.add("release")
      const fiber = yield* forkChild(
        Lock.withLock("x", Effect.void, { wait: "forever" }).pipe(Effect.provide(process.layer))
      )
      yield* settle
      const interrupted = yield* forkChild(Fiber.interrupt(fiber))
      yield* settle
      // Done without the clock moving: nothing waited for the release that tries to clean up.
      expect(Option.isSome(yield* poll(interrupted))).toBe(true)
      expect(process.calls.map((call) => call.operation)).toEqual(["tryAcquire", "release"])
    }))

  it.effect("withLock answers LockLost at the deadline, without waiting for a release the store never answers", () =>
    Effect.gen(function*() {
      const process = processOver(sharedMemory())
      const fiber = yield* forkChild(
        Lock.withLock("x", Effect.never, { lease: "3 seconds" }).pipe(Effect.provide(process.layer))
      )
      yield* settle
      process.silent.add("renew")
      process.silent.add("release")
      // lease 3 s - safety margin 0.3 s
      yield* TestClock.adjust("2700 millis")
      expect(yield* Effect.flip(Fiber.join(fiber))).toMatchObject({ _tag: "LockLost", reason: "expired" })
    }))
})

describe("pollInterval", () => {
  it.effect("is the longest sleep between attempts, and half of it the shortest", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const holder = processOver(backing)
      const waiter = processOver(backing)
      yield* forkChild(Lock.withLock("x", Effect.never, { lease: "60 seconds" }).pipe(Effect.provide(holder.layer)))
      yield* settle
      yield* forkChild(
        Lock.withLock("x", Effect.void, { wait: "forever", pollInterval: "100 millis" }).pipe(
          Effect.provide(waiter.layer)
        )
      )
      yield* TestClock.adjust("20 seconds")
      // An attempt: the first write, then a read before each write after a conflict.
      const times = waiter.calls.filter((call) => call.operation === "tryAcquire" || call.operation === "inspect")
        .map((call) => call.at)
      expect(times.length).toBeGreaterThan(100)
      const gaps = times.slice(1).map((at, i) => at - times[i]!)
      expect(Math.max(...gaps)).toBeLessThanOrEqual(100)
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(50)
    }))
})

describe("lease.changes", () => {
  it.effect("ends after Released", () =>
    Effect.gen(function*() {
      const collected = yield* Effect.scoped(Effect.gen(function*() {
        const lease = yield* Lock.acquire("x")
        const changes = yield* forkChild(Stream.runCollect(lease.changes))
        yield* settle
        return changes
      }))
      const statuses = yield* Fiber.join(collected)
      expect(Array.from(statuses).map((status) => status._tag)).toEqual(["Held", "Released"])
    }).pipe(Effect.provide(LockStore.layerMemory)))

  it.effect("ends after Lost", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const process = processOver(backing)
      const acquired = yield* Deferred.make<Lease.Lease>()
      yield* forkChild(
        Effect.scoped(Effect.flatMap(Lock.acquire("x", { lease: "3 seconds" }), (lease) =>
          Effect.andThen(Deferred.succeed(acquired, lease), Effect.never))).pipe(Effect.provide(process.layer))
      )
      const lease = yield* Deferred.await(acquired)
      const collected = yield* forkChild(Stream.runCollect(lease.changes))
      yield* settle
      yield* backing.forceRelease("x")
      // The next renew (at 1 s) finds the lock no longer ours.
      yield* TestClock.adjust("1 second")
      const statuses = yield* Fiber.join(collected)
      expect(
        Array.from(statuses).map((status) =>
          status._tag
        )
      ).toEqual(["Held", "Lost"])
    }))
})
