import { describe, expect, it } from "@effect/vitest"
import { Lock, LockStore } from "@leasehold/lock"
import { Effect, Either, Fiber, Layer, Option, TestClock } from "effect"
import * as FaultyStore from "../src/FaultyStore.js"

const request = (owner: string): LockStore.AcquireRequest => ({
  name: "a",
  owner,
  holder: owner,
  leaseMs: 10_000,
  data: undefined,
  takeover: { _tag: "Absolute", maxClockSkewMs: 0 }
})

/** A store whose first tryAcquire gets `fault`; returns it with the shared data to inspect. */
const withFault = (fault: FaultyStore.Fault) => {
  const backing = LockStore.makeMemory()
  const seen: Array<FaultyStore.FaultKind> = []
  const store = FaultyStore.make(backing, {
    process: "p1",
    plan: FaultyStore.fromList([{ process: "p1", operation: "tryAcquire", nth: 0, fault }]),
    onFault: (_, f) => seen.push(f.kind)
  })
  const owner = () => Effect.map(backing.inspect("a"), (r) => Option.getOrUndefined(r)?.owner)
  return { store, owner, seen }
}

describe("FaultyStore", () => {
  it.effect("errors fail the call before anything is written, retryable or not", () =>
    Effect.gen(function*() {
      for (const kind of ["retryable", "fatal"] as const) {
        const { owner, seen, store } = withFault({ kind })
        const error = yield* Effect.flip(store.tryAcquire(request("x")))
        expect(error.retryable).toBe(kind === "retryable")
        expect(yield* owner()).toBeUndefined()
        expect(seen).toEqual([kind])
        // Only the planned call: the next one goes through.
        expect((yield* store.tryAcquire(request("x")))._tag).toBe("Acquired")
      }
    }))

  it.effect("latency and hangs delay the write itself; a slow response delays only the answer", () =>
    Effect.gen(function*() {
      for (const kind of ["latency", "hang", "slowResponse"] as const) {
        const { owner, store } = withFault({ kind, ms: 1_000 })
        const fiber = yield* Effect.fork(store.tryAcquire(request("x")))
        yield* TestClock.adjust(999)
        expect(yield* owner()).toBe(kind === "slowResponse" ? "x" : undefined)
        expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
        yield* TestClock.adjust(1)
        expect((yield* Fiber.join(fiber))._tag).toBe("Acquired")
        expect(yield* owner()).toBe("x")
      }
    }))

  it.effect("a hang without a duration never answers and never writes", () =>
    Effect.gen(function*() {
      const { owner, store } = withFault({ kind: "hang" })
      const fiber = yield* Effect.fork(store.tryAcquire(request("x")))
      yield* TestClock.adjust("1 day")
      expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
      expect(yield* owner()).toBeUndefined()
      yield* Fiber.interrupt(fiber)
    }))

  it.effect("lost responses: the write applies, the caller gets an error or a timeout", () =>
    Effect.gen(function*() {
      const lost = withFault({ kind: "lostResponse" })
      const error = yield* Effect.flip(lost.store.tryAcquire(request("x")))
      expect(error.retryable).toBe(true)
      expect(yield* lost.owner()).toBe("x")

      const timeout = withFault({ kind: "lostTimeout", ms: 5_000 })
      const fiber = yield* Effect.fork(Effect.either(timeout.store.tryAcquire(request("y"))))
      yield* TestClock.adjust(1)
      expect(yield* timeout.owner()).toBe("y")
      yield* TestClock.adjust(4_999)
      const result = yield* Fiber.join(fiber)
      expect(Either.isLeft(result) && result.left.retryable).toBe(true)
    }))

  it.effect("a random plan is a function of (seed, process, operation, call number)", () =>
    Effect.sync(() => {
      const plan = FaultyStore.random({ seed: 7, rate: 0.5 })
      const calls = Array.from({ length: 200 }, (_, nth): FaultyStore.Call => ({
        process: "p1",
        operation: "renew",
        nth
      }))
      const first = calls.map(plan)
      expect(calls.map(FaultyStore.random({ seed: 7, rate: 0.5 }))).toEqual(first)
      const faults = first.filter((f) => f !== undefined).length
      expect(faults).toBeGreaterThan(60)
      expect(faults).toBeLessThan(140)
      expect(calls.map(FaultyStore.random({ seed: 8, rate: 0.5 }))).not.toEqual(first)
    }))

  it.effect("a paused process's calls wait at its gate, before the write and before the answer", () =>
    Effect.gen(function*() {
      const backing = LockStore.makeMemory()
      const latch = yield* Effect.makeLatch(false)
      const store = FaultyStore.make(backing, { process: "p1", plan: () => undefined, gate: latch.await })
      const fiber = yield* Effect.fork(store.tryAcquire(request("x")))
      yield* TestClock.adjust(1_000)
      expect(Option.isNone(yield* backing.inspect("a"))).toBe(true)
      yield* latch.open
      expect((yield* Fiber.join(fiber))._tag).toBe("Acquired")
    }))

  it.effect("as a layer it wraps the store in context: a lock taken through it fails as planned", () =>
    Effect.gen(function*() {
      const faulty = FaultyStore.layer({
        process: "p1",
        plan: FaultyStore.fromList([{ operation: "tryAcquire", nth: 0, fault: { kind: "fatal" } }])
      }).pipe(Layer.provide(LockStore.layerMemory))
      const error = yield* Effect.flip(Lock.withLock("a", Effect.void).pipe(Effect.provide(faulty)))
      expect(error._tag).toBe("LockStoreError")
      if (error._tag === "LockStoreError") expect(error.message).toContain("injected fault: fatal")
    }))
})
