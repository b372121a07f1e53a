import { describe, expect, it } from "@effect/vitest"
import { Lock, LockStore } from "@leasehold/lock"
import { Deferred, Effect, Exit, Fiber, Layer, Option } from "effect"
import * as FaultyStore from "../src/FaultyStore.js"
import * as EffectLine from "../src/internal/effectLine.js"
import { TestClock } from "../src/internal/effectLine.js"
import * as TestLine from "./effectLine.js"

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
        const fiber = yield* EffectLine.forkChild(store.tryAcquire(request("x")))
        yield* TestClock.adjust(999)
        expect(yield* owner()).toBe(kind === "slowResponse" ? "x" : undefined)
        expect(Option.isNone(yield* TestLine.poll(fiber))).toBe(true)
        yield* TestClock.adjust(1)
        expect((yield* Fiber.join(fiber))._tag).toBe("Acquired")
        expect(yield* owner()).toBe("x")
      }
    }))

  it.effect("a hang without a duration never answers and never writes", () =>
    Effect.gen(function*() {
      const { owner, store } = withFault({ kind: "hang" })
      const fiber = yield* EffectLine.forkChild(store.tryAcquire(request("x")))
      yield* TestClock.adjust("1 day")
      expect(Option.isNone(yield* TestLine.poll(fiber))).toBe(true)
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
      const fiber = yield* EffectLine.forkChild(
        Effect.match(timeout.store.tryAcquire(request("y")), {
          onFailure: (error) => error.retryable,
          onSuccess: () => false
        })
      )
      yield* TestClock.adjust(1)
      expect(yield* timeout.owner()).toBe("y")
      yield* TestClock.adjust(4_999)
      expect(yield* Fiber.join(fiber)).toBe(true)
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
      const opened = yield* Deferred.make<void>()
      const store = FaultyStore.make(backing, { process: "p1", plan: () => undefined, gate: Deferred.await(opened) })
      const fiber = yield* EffectLine.forkChild(store.tryAcquire(request("x")))
      yield* TestClock.adjust(1_000)
      expect(Option.isNone(yield* backing.inspect("a"))).toBe(true)
      yield* Deferred.succeed(opened, undefined)
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

/** A store over `backing` that notes each request it runs, when it runs it. */
const spying = (backing: LockStore.LockStore, ran: Array<unknown>): LockStore.LockStore => {
  const noted = <R, A, E>(call: (request: R) => Effect.Effect<A, E>) => (request: R) =>
    Effect.suspend(() => {
      ran.push(request)
      return call(request)
    })
  return {
    ...backing,
    tryAcquire: noted(backing.tryAcquire),
    renew: noted(backing.renew),
    release: noted(backing.release),
    reserve: noted(backing.reserve),
    forceRelease: noted(backing.forceRelease),
    tryAcquirePermits: noted(backing.tryAcquirePermits),
    renewPermits: noted(backing.renewPermits),
    releasePermits: noted(backing.releasePermits)
  }
}

/** A faulty view of `backing` whose planned calls are held, and the deliveries it reports. */
const holding = (backing: LockStore.LockStore, faults: ReadonlyArray<FaultyStore.ScheduledFault>) => {
  const deliveries: Array<FaultyStore.Delivery> = []
  const store = FaultyStore.make(backing, {
    process: "p1",
    plan: FaultyStore.fromList(faults),
    onDelivery: (delivery) => deliveries.push(delivery)
  })
  return { store, deliveries }
}

const leaseUntil = (backing: LockStore.LockStore) =>
  Effect.map(backing.inspect("a"), (record) => Option.getOrUndefined(record)?.leaseUntil)

describe("FaultyStore: late delivery", () => {
  it.effect("a renew whose sender timed out lands later, as of its send time, behind the sender's newer renew", () =>
    Effect.gen(function*() {
      const backing = LockStore.makeMemory()
      const { deliveries, store } = holding(backing, [
        { operation: "renew", nth: 0, fault: { kind: "lateTimeout", ms: 5_000, giveUpMs: 100 } }
      ])
      const acquired = yield* backing.tryAcquire(request("x"))
      if (acquired._tag !== "Acquired") return expect.fail("not acquired")
      yield* TestClock.adjust(1_000)
      const renew: LockStore.RenewRequest = { name: "a", owner: "x", fence: acquired.record.fence, leaseMs: 10_000 }
      const timedOut = yield* EffectLine.forkChild(Effect.flip(store.renew(renew)))
      yield* TestClock.adjust(100)
      const error = yield* Fiber.join(timedOut)
      expect(error.retryable).toBe(true)
      expect(error.message).toContain("may still be delivered")
      yield* TestClock.adjust(900)
      expect((yield* store.renew({ ...renew }))._tag).toBe("Renewed")
      expect(yield* leaseUntil(backing)).toBe(12_000)
      yield* TestClock.adjust(3_999)
      expect(deliveries).toEqual([])
      yield* TestClock.adjust(1)
      // Built at 1,000: the lease goes back behind the renew sent at 2,000.
      expect(yield* leaseUntil(backing)).toBe(11_000)
      expect(deliveries.map(({ builtAt, call, heldMs }) => ({ builtAt, call, heldMs }))).toEqual([
        { builtAt: 1_000, call: { process: "p1", operation: "renew", nth: 0 }, heldMs: 5_000 }
      ])
      expect(deliveries[0]!.request).toBe(renew)
      expect(Exit.isSuccess(deliveries[0]!.exit)).toBe(true)
    }))

  it.effect("the transport's retry: the copy sent again answers, and the first lands behind the sender's next renew", () =>
    Effect.gen(function*() {
      const backing = LockStore.makeMemory()
      const { deliveries, store } = holding(backing, [
        { operation: "renew", nth: 0, fault: { kind: "lateRetry", ms: 3_000, giveUpMs: 500 } }
      ])
      const acquired = yield* store.tryAcquire(request("x"))
      if (acquired._tag !== "Acquired") return expect.fail("not acquired")
      const renew = (sequence: number) =>
        store.renew({ name: "a", owner: "x", fence: acquired.record.fence, leaseMs: 10_000, sequence })
      const fiber = yield* EffectLine.forkChild(renew(1))
      yield* TestClock.adjust(499)
      expect(Option.isNone(yield* TestLine.poll(fiber))).toBe(true)
      yield* TestClock.adjust(1)
      const answer = yield* Fiber.join(fiber)
      if (answer._tag !== "Renewed") return expect.fail("not renewed")
      // Sent again as it was built, at 0.
      expect(answer.record.leaseUntil).toBe(10_000)
      yield* TestClock.adjust(500)
      const next = yield* renew(2)
      expect(next._tag === "Renewed" && next.record.leaseUntil).toBe(11_000)
      yield* TestClock.adjust(2_000)
      // The first copy lands now, as built at 0, behind the newer renew: the store's write sequence keeps the lease.
      expect(yield* leaseUntil(backing)).toBe(11_000)
      expect(deliveries.map((d) => d.heldMs)).toEqual([3_000])
    }))

  it.effect("an acquire is not retried behind its caller's back: it times out, and its first copy may still land", () =>
    Effect.gen(function*() {
      const backing = LockStore.makeMemory()
      const { deliveries, store } = holding(backing, [
        { operation: "tryAcquire", nth: 0, fault: { kind: "lateRetry", ms: 3_000, giveUpMs: 500 } }
      ])
      const fiber = yield* EffectLine.forkChild(Effect.flip(store.tryAcquire(request("x"))))
      yield* TestClock.adjust(500)
      const error = yield* Fiber.join(fiber)
      expect([error._tag, error.retryable]).toEqual(["LockStoreError", true])
      expect(Option.isNone(yield* backing.inspect("a"))).toBe(true)
      yield* TestClock.adjust(2_500)
      // Delivered as of 0: the lease the caller could not know of ends at 10 s.
      expect(yield* leaseUntil(backing)).toBe(10_000)
      expect(deliveries.map((d) => d.heldMs)).toEqual([3_000])
    }))

  it.effect("a call that hangs lands even after its caller interrupted it", () =>
    Effect.gen(function*() {
      const backing = LockStore.makeMemory()
      const { deliveries, store } = holding(backing, [
        { operation: "release", nth: 0, fault: { kind: "lateHang", ms: 2_000 } }
      ])
      const acquired = yield* backing.tryAcquire(request("x"))
      if (acquired._tag !== "Acquired") return expect.fail("not acquired")
      const fiber = yield* EffectLine.forkChild(store.release({ name: "a", owner: "x", fence: acquired.record.fence }))
      yield* TestClock.adjust(500)
      yield* Fiber.interrupt(fiber)
      const owner = Effect.map(backing.inspect("a"), (r) => Option.getOrUndefined(r)?.owner)
      expect(yield* owner).toBe("x")
      yield* TestClock.adjust(1_500)
      expect(yield* owner).toBeUndefined()
      expect(deliveries.map((d) => d.exit._tag === "Success" && (d.exit.value as { _tag: string })._tag)).toEqual([
        "Released"
      ])
    }))

  it.effect("every write can be held, and the store gets the very request its caller built, extra fields and all", () =>
    Effect.gen(function*() {
      const ran: Array<unknown> = []
      const operations: ReadonlyArray<FaultyStore.Operation> = [
        "tryAcquire",
        "renew",
        "release",
        "reserve",
        "forceRelease",
        "tryAcquirePermits",
        "renewPermits",
        "releasePermits"
      ]
      const { deliveries, store } = holding(
        spying(LockStore.makeMemory(), ran),
        operations.map((operation) => ({ operation, nth: 0, fault: { kind: "lateHang", ms: 1_000 } }))
      )
      // A field the store contract may gain (a write counter): whatever a request carries goes through.
      const extra = { sequence: 7 }
      const lock = { name: "a", owner: "x" }
      const semaphore = { name: "s", owner: "x", leaseMs: 10_000 }
      const requests = {
        tryAcquire: { ...request("x"), ...extra },
        renew: { ...lock, fence: 1, leaseMs: 10_000, ...extra },
        release: { ...lock, fence: undefined, ...extra },
        reserve: { ...lock, reserveMs: 100, graceMs: 0, waitingSince: 0, ...extra },
        tryAcquirePermits: {
          ...semaphore,
          holder: "x",
          limit: 2,
          permits: 1,
          data: undefined,
          takeover: { _tag: "Absolute", maxClockSkewMs: 0 } as const,
          expired: [],
          create: true,
          ...extra
        },
        renewPermits: { ...semaphore, fence: 1, ...extra },
        releasePermits: { name: "s", owner: "x", fence: undefined, permits: 1, ...extra }
      }
      const calls: ReadonlyArray<Effect.Effect<unknown, unknown>> = [
        store.tryAcquire(requests.tryAcquire),
        store.renew(requests.renew),
        store.release(requests.release),
        store.reserve(requests.reserve),
        store.forceRelease("a"),
        store.tryAcquirePermits(requests.tryAcquirePermits),
        store.renewPermits(requests.renewPermits),
        store.releasePermits(requests.releasePermits)
      ]
      const fibers = yield* Effect.forEach(calls, (call) => EffectLine.forkChild(call))
      yield* TestClock.adjust(10)
      yield* Fiber.interruptAll(fibers)
      expect(ran).toEqual([])
      yield* TestClock.adjust(990)
      // Delivered at the same instant, in no particular order: match each by its operation.
      const sent: Record<string, unknown> = { ...requests, forceRelease: "a" }
      expect(deliveries.map((d) => d.call.operation).sort()).toEqual([...operations].sort())
      expect(deliveries.filter((d) => d.request !== sent[d.call.operation])).toEqual([])
      expect(ran.length).toBe(operations.length)
      expect(ran.filter((r) => !Object.values(sent).includes(r))).toEqual([])
    }))

  it.effect("a random plan draws the late kinds too, each giving up before its write lands", () =>
    Effect.sync(() => {
      const plan = FaultyStore.random({ seed: 3, rate: 1 })
      const faults = Array.from({ length: 300 }, (_, nth) => plan({ process: "p1", operation: "renew", nth })!)
      for (const kind of FaultyStore.lateFaultKinds) expect(faults.some((f) => f.kind === kind)).toBe(true)
      const givingUp = faults.filter((f) => f.kind === "lateTimeout" || f.kind === "lateRetry")
      expect(givingUp.every((f) => f.giveUpMs !== undefined && f.giveUpMs < f.ms!)).toBe(true)
    }))
})
