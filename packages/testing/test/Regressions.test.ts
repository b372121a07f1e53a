/**
 * Regression cases from bugs seen in other lock libraries, each against the fault-injecting store under TestClock.
 * Timings: lease 3 s, heartbeat 1 s, safety margin 300 ms (the default tenth), so the local deadline is the last
 * renew's send time + 2.7 s; absolute takeover at leaseUntil + maxClockSkew (1 s).
 */
import { describe, expect, it } from "@effect/vitest"
import { Lock, LockStore } from "@leasehold/lock"
import { Clock, Deferred, Effect, Exit, Fiber, Layer, Option } from "effect"
import * as FaultyStore from "../src/FaultyStore.js"
import * as EffectLine from "../src/internal/effectLine.js"
import { TestClock } from "../src/internal/effectLine.js"
import * as Simulation from "../src/Simulation.js"
import * as TestLine from "./effectLine.js"

const options = { lease: 3_000, heartbeat: 1_000, maxClockSkew: 1_000 } as const

/** A process: its own local queues over the shared data, with the given faults; `calls` logs every store call. */
const process = (backing: LockStore.LockStore, id: string, faults: ReadonlyArray<FaultyStore.ScheduledFault> = []) => {
  const calls: Array<FaultyStore.Call> = []
  const planned = FaultyStore.fromList(faults)
  const service = FaultyStore.make(backing, {
    process: id,
    plan: (call) => {
      calls.push(call)
      return planned(call)
    }
  })
  return { service, layer: Layer.succeed(LockStore.LockStore, service), calls }
}

/** Random draws at the top of their range: each first renew at the latest point it may go, one heartbeat in. */
const latestFirstRenew = TestLine.withRandomFixed(0)

const count = (calls: ReadonlyArray<FaultyStore.Call>, operation: FaultyStore.Operation) =>
  calls.filter((c) => c.operation === operation).length

describe("regressions from other lock libraries", () => {
  it.effect("a release is not undone by a heartbeat in flight", () =>
    Effect.gen(function*() {
      const backing = LockStore.makeMemory()
      // The first renew (sent at 1000) takes 500 ms to reach the store; the section ends at 1100, while it is in flight.
      const a = process(backing, "a", [{ operation: "renew", nth: 0, fault: { kind: "hang", ms: 500 } }])
      const b = process(backing, "b")
      const fiber = yield* EffectLine.forkChild(
        Lock.withLock("report", Effect.sleep(1_100), options).pipe(Effect.provide(a.layer))
      )
      yield* TestClock.adjust(1_600)
      expect(Exit.isSuccess(yield* Fiber.await(fiber))).toBe(true)
      expect(Option.getOrThrow(yield* backing.inspect("report")).owner).toBeUndefined()
      // Free at once, not after the renewed lease runs out.
      const lease = yield* Lock.acquire("report", { ...options, wait: 0 }).pipe(Effect.provide(b.layer))
      expect(lease.fence).toBeGreaterThan(0)
    }).pipe(Effect.scoped, latestFirstRenew))

  it.effect("an interrupted acquire does not leak the lock", () =>
    Effect.gen(function*() {
      const backing = LockStore.makeMemory()
      // The acquiring write applies at once; its answer would take 1 s. The caller gives up after 500 ms.
      const a = process(backing, "a", [{ operation: "tryAcquire", nth: 0, fault: { kind: "slowResponse", ms: 1_000 } }])
      const b = process(backing, "b")
      const fiber = yield* EffectLine.forkChild(
        Lock.withLock("job", Effect.never, options).pipe(Effect.provide(a.layer))
      )
      yield* TestClock.adjust(500)
      yield* Fiber.interrupt(fiber)
      expect(count(a.calls, "release")).toBe(1)
      expect(Option.getOrThrow(yield* backing.inspect("job")).owner).toBeUndefined()
      const lease = yield* Lock.acquire("job", { ...options, wait: 0 }).pipe(Effect.provide(b.layer))
      expect(lease.holder).toBeDefined()
    }).pipe(Effect.scoped))

  for (const kind of ["hang", "lostTimeout"] as const) {
    it.effect(`a refresh that ${kind === "hang" ? "hangs" : "applies, then times out"} does not let the section outlive its lease`, () =>
      Effect.gen(function*() {
        const backing = LockStore.makeMemory()
        // The second renew (sent at 2000) never answers within the lease.
        const a = process(backing, "a", [{ operation: "renew", nth: 1, fault: { kind, ms: 60_000 } }])
        const b = process(backing, "b")
        let sectionEnded: number | undefined
        const section = Effect.never.pipe(
          Effect.onInterrupt(() => Effect.map(Clock.currentTimeMillis, (t) => sectionEnded = t))
        )
        const fiber = yield* EffectLine.forkChild(
          Lock.withLock("ledger", section, options).pipe(Effect.provide(a.layer))
        )
        yield* TestClock.adjust(3_699)
        expect(sectionEnded).toBeUndefined()
        // Deadline: the last good renew's send time (1000) + lease - margin.
        yield* TestClock.adjust(1)
        expect(sectionEnded).toBe(3_700)
        const error = yield* Effect.flip(yield* Fiber.await(fiber))
        expect(error._tag).toBe("LockLost")
        if (error._tag === "LockLost") expect(error.reason).toBe("expired")
        // The lock lost by expiry is released in the store once the section has ended; only then can another take it.
        const waiter = yield* EffectLine.forkChild(
          Lock.acquire("ledger", { ...options, wait: "forever" }).pipe(Effect.provide(b.layer), Effect.scoped)
        )
        yield* TestClock.adjust(5_000)
        const lease = yield* Fiber.join(waiter)
        expect(lease.record.acquiredAt!).toBeGreaterThanOrEqual(sectionEnded!)
      }).pipe(latestFirstRenew))
  }

  it.effect("a stolen lease fails the section with LockLost and does not crash the process", () =>
    Effect.gen(function*() {
      const backing = LockStore.makeMemory()
      const a = process(backing, "a")
      const b = process(backing, "b")
      const started = yield* Deferred.make<void>()
      const fiber = yield* EffectLine.forkChild(
        Lock.withLock("orders", Effect.andThen(Deferred.succeed(started, undefined), Effect.never), options).pipe(
          Effect.provide(a.layer)
        )
      )
      yield* Deferred.await(started)
      yield* b.service.forceRelease("orders")
      yield* Lock.acquire("orders", options).pipe(Effect.provide(b.layer))
      yield* TestClock.adjust(1_000)
      const exit = yield* Fiber.await(fiber)
      expect(Exit.isFailure(exit) && !EffectLine.hasDies(exit.cause)).toBe(true)
      const error = yield* Effect.flip(exit)
      expect(error._tag).toBe("LockLost")
      if (error._tag === "LockLost") expect(error.reason).toBe("stolen")
      // The process goes on: it can take another lock, and this one again once it is free.
      const other = yield* Lock.acquire("other", options).pipe(Effect.provide(a.layer))
      expect(other.fence).toBeGreaterThan(0)
    }).pipe(Effect.scoped))

  it.effect("a stolen lease interrupts a scoped acquire's fiber, without a defect", () =>
    Effect.gen(function*() {
      const backing = LockStore.makeMemory()
      const a = process(backing, "a")
      const b = process(backing, "b")
      const fiber = yield* EffectLine.forkChild(
        Effect.scoped(Effect.andThen(Lock.acquire("orders", options), Effect.never)).pipe(Effect.provide(a.layer))
      )
      yield* TestClock.adjust(10)
      yield* b.service.forceRelease("orders")
      yield* Lock.acquire("orders", options).pipe(Effect.provide(b.layer))
      yield* TestClock.adjust(1_000)
      const exit = yield* Fiber.await(fiber)
      expect(Exit.isFailure(exit) && EffectLine.hasInterrupts(exit.cause)).toBe(true)
      expect(Exit.isFailure(exit) && EffectLine.hasDies(exit.cause)).toBe(false)
    }).pipe(Effect.scoped))

  for (const seed of [1, 2, 3]) {
    it.effect(`no renew is wasted right after acquire: the first renew comes in the second half of the first heartbeat, never later (seed ${seed})`, () =>
      Effect.gen(function*() {
        const a = process(LockStore.makeMemory(), "a")
        yield* EffectLine.forkChild(Lock.withLock("nightly", Effect.never, options).pipe(Effect.provide(a.layer)))
        yield* TestClock.adjust(499)
        expect(count(a.calls, "tryAcquire")).toBe(1)
        expect(count(a.calls, "renew")).toBe(0)
        yield* TestClock.adjust(501)
        expect(count(a.calls, "renew")).toBe(1)
        // Then one every heartbeat: two more by 3000 whenever the first went, and not a third.
        yield* TestClock.adjust(2_000)
        expect(count(a.calls, "renew")).toBe(3)
      }).pipe(EffectLine.withSeed(seed)))
  }
})

describe("clock offsets under TestClock", () => {
  it.effect("a waiter whose clock runs ahead takes over a dead holder's lock that much earlier, never before the bound", () =>
    Effect.gen(function*() {
      const backing = LockStore.makeMemory()
      // A holder that died right after acquiring: leaseUntil 3000 on its (true) clock.
      yield* backing.tryAcquire({
        name: "dead",
        owner: "0".repeat(32),
        holder: "crashed",
        leaseMs: 3_000,
        data: undefined,
        takeover: { _tag: "Absolute", maxClockSkewMs: 1_000 }
      })
      const ahead = process(backing, "ahead")
      const waiter = yield* EffectLine.forkChild(
        Lock.acquire("dead", { ...options, wait: "forever" }).pipe(
          Effect.provide(ahead.layer),
          Simulation.withClockOffset(500),
          Effect.scoped
        )
      )
      // Takeover needs leaseUntil + maxClockSkew < its wall clock = true time + 500: after true 3500.
      yield* TestClock.adjust(3_500)
      expect(Option.isNone(yield* TestLine.poll(waiter))).toBe(true)
      yield* TestClock.adjust(1_000)
      const lease = yield* Fiber.join(waiter)
      expect(lease.record.acquiredAt! - 500).toBeGreaterThan(3_500)
      expect(lease.record.acquiredAt! - 500).toBeLessThanOrEqual(3_500 + options.lease / 10 + 200)
    }))
})
