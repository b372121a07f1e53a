/**
 * Writes the network delivers after their sender gave up on them (a timeout, an interruption, a retry), out of order
 * with the sender's later writes: none may shorten a lease, free a later acquisition, or pass a semaphore's limit.
 */
import { describe, expect, it } from "@effect/vitest"
import { Lock, LockError, LockStore, Semaphore } from "@leasehold/lock"
import { Clock, Effect, Fiber, Layer, Option } from "effect"
import { forkChild, TestClock, withFixedRandom } from "./effectLine.js"
import * as LateNetwork from "./lateNetwork.js"
import { outcome, probe, settle, sharedMemory } from "./support.js"

const layerOf = (network: LateNetwork.LateNetwork) => Layer.succeed(LockStore.LockStore, network.service)

const options = {
  lease: "3 seconds",
  heartbeat: "1 second",
  safetyMargin: "500 millis",
  maxClockSkew: "1 second"
} as const

const recordOf = (backing: LockStore.LockStore, name: string) => Effect.map(backing.inspect(name), Option.getOrThrow)

describe("writes delivered late", () => {
  it.effect("a data update given up on under a timeout and delivered after the next renew changes nothing", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const network = LateNetwork.make(backing)
      const lease = yield* Lock.acquire("report", { ...options, data: "v1" }).pipe(Effect.provide(layerOf(network)))
      network.holdNext("renew", "hang", (request) => request.setData !== undefined)
      const update = yield* forkChild(lease.updateData("v2").pipe(Effect.timeout("100 millis"), outcome))
      yield* TestClock.adjust("100 millis")
      expect((yield* Fiber.join(update))._tag).toBe("Failure")
      expect(network.heldCount()).toBe(1)
      // The heartbeat's next renew goes and is applied: the lease now counts from it.
      yield* TestClock.adjust("1 second")
      const renewed = yield* recordOf(backing, "report")
      expect(renewed.leaseUntil).toBeGreaterThan(3_000)
      // Then the update lands, as built at 0: it would set the lease to end at 3 s.
      yield* network.deliver
      const after = yield* recordOf(backing, "report")
      expect(after.leaseUntil).toBe(renewed.leaseUntil)
      expect(after.data).toBe("v1")
      expect(yield* lease.isHeld).toBe(true)
    }).pipe(Effect.scoped, withFixedRandom([1])))

  it.effect("a heartbeat renew that timed out, was retried, and is delivered after the retry does not move the lease back", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const network = LateNetwork.make(backing)
      const lease = yield* Lock.acquire("nightly", options).pipe(Effect.provide(layerOf(network)))
      network.holdNext("renew", "timeout")
      // The first renew (at one heartbeat) times out; the retry after a short backoff is applied.
      yield* TestClock.adjust("1 second")
      yield* TestClock.adjust("500 millis")
      expect(network.heldCount()).toBe(1)
      const renewed = yield* recordOf(backing, "nightly")
      yield* network.deliver
      expect((yield* recordOf(backing, "nightly")).leaseUntil).toBe(renewed.leaseUntil)
      expect(yield* lease.isHeld).toBe(true)
    }).pipe(Effect.scoped, withFixedRandom([1])))

  it.effect("a semaphore holder's renew delivered after a newer one does not let a second holder in", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const network = LateNetwork.make(backing)
      const semaphore = { ...options, limit: 1 }
      const permits = yield* Semaphore.acquire("printer", semaphore).pipe(Effect.provide(layerOf(network)))
      network.holdNext("renewPermits", "timeout")
      yield* TestClock.adjust("1 second")
      yield* TestClock.adjust("500 millis")
      expect(network.heldCount()).toBe(1)
      const leaseUntil = () =>
        Effect.map(backing.inspectSemaphore("printer"), (record) => Option.getOrThrow(record).holders[0]!.leaseUntil)
      const renewed = yield* leaseUntil()
      yield* network.deliver
      expect(yield* leaseUntil()).toBe(renewed)
      // Past the delivered renew's lease end plus the skew bound, the holder still holds: nobody else gets in.
      yield* TestClock.adjust("3 seconds")
      const other = yield* probe(backing)
      const second = yield* outcome(
        Effect.scoped(Semaphore.acquire("printer", semaphore).pipe(Effect.provide(other.layer)))
      )
      expect(second._tag).toBe("Failure")
      expect(yield* permits.isHeld).toBe(true)
    }).pipe(Effect.scoped, withFixedRandom([1])))

  it.effect("a give-back delivered after the acquire tried again frees nothing the retry acquired", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const network = LateNetwork.make(backing)
      // The first attempt is applied, but answered only once its lease could be taken over: it is given back, and the
      // give-back is held by the network.
      network.answerLate("tryAcquire", 3_000)
      network.holdNext("release", "timeout", (request) => request.fence === undefined)
      const acquiring = yield* forkChild(
        Lock.acquire("ledger", { ...options, wait: "20 seconds" }).pipe(Effect.provide(layerOf(network)))
      )
      yield* TestClock.adjust("3 seconds")
      network.answerLate("tryAcquire", undefined)
      expect(network.heldCount()).toBe(1)
      yield* TestClock.adjust("5 seconds")
      const lease = yield* Fiber.join(acquiring)
      expect(yield* lease.isHeld).toBe(true)
      // The give-back lands now: the lease acquired since is still the holder's.
      yield* network.deliver
      expect((yield* recordOf(backing, "ledger")).owner).toBe(lease.owner)
      const other = yield* probe(backing)
      const taken = yield* outcome(
        Effect.scoped(Lock.acquire("ledger", options).pipe(Effect.provide(other.layer)))
      )
      expect(taken._tag).toBe("Failure")
    }).pipe(Lock.scoped, withFixedRandom([1])))

  it.effect("a lease that bears the acquire's owner counts from the earliest of its writes whose outcome is unknown", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const holder = yield* probe(backing)
      const network = LateNetwork.make(backing)
      const first = yield* forkChild(
        Lock.withLock("queue", Effect.sleep("1950 millis"), options).pipe(Effect.provide(holder.layer))
      )
      yield* settle
      // The first attempt times out but is held by the network; the next ones, a poll interval apart, find the holder.
      // The fiber that acquires relies on the lease until it is lost, which interrupts it.
      network.holdNext("tryAcquire", "timeout")
      let stoppedAt: number | undefined
      const relying = yield* forkChild(
        Lock.acquire("queue", { ...options, wait: "20 seconds", pollInterval: "100 millis" }).pipe(
          Effect.andThen(Effect.never),
          Effect.onInterrupt(() => Effect.map(Clock.currentTimeMillis, (now) => stoppedAt = now)),
          Effect.scoped,
          Effect.provide(layerOf(network))
        )
      )
      yield* TestClock.adjust("1950 millis")
      yield* Fiber.join(first)
      // The holder released; the first attempt lands now, as built at 0: its lease ends at 3 s.
      yield* network.deliver
      network.failing("renew", true)
      // The next attempt finds its own owner: acquired, on the lease that ends at 3 s.
      yield* TestClock.adjust("50 millis")
      const acquired = yield* recordOf(backing, "queue")
      expect(acquired.leaseUntil).toBe(3_000)
      expect(stoppedAt).toBeUndefined()
      // Another process may take over from 4 s (the lease's end plus the skew bound): the fiber is stopped before.
      yield* TestClock.adjust("2001 millis")
      const thief = yield* probe(backing)
      yield* Lock.acquire("queue", options).pipe(Effect.provide(thief.layer))
      expect(stoppedAt).toBeLessThan(4_000)
      yield* Fiber.interrupt(relying)
    }).pipe(Effect.scoped, withFixedRandom([1])))

  it.effect("an acquire that the store refused as a whole leaves nothing to give back", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const refusing = yield* probe(
        LockStore.intercept(backing, (operation, run) =>
          operation === "tryAcquire"
            ? Effect.fail(
              new LockError.LockStoreError({
                operation,
                retryable: false,
                mayHaveApplied: false,
                message: "table not found"
              })
            )
            : run)
      )
      const error = yield* Effect.flip(
        Effect.scoped(Lock.acquire("orders", options)).pipe(Effect.provide(refusing.layer))
      )
      expect(error._tag).toBe("LockStoreError")
      expect(refusing.calls.release).toBe(0)
      // A failure whose write may have applied is given back.
      const unsure = yield* probe(backing)
      unsure.failing("tryAcquire", true)
      yield* Effect.flip(Effect.scoped(Lock.acquire("orders", options)).pipe(Effect.provide(unsure.layer)))
      expect(unsure.calls.release).toBe(1)
    }))
})
