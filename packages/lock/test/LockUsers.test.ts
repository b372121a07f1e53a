import { describe, expect, it } from "@effect/vitest"
import { Lock, LockStore } from "@leasehold/lock"
import { Context, Effect, Exit, Fiber, Layer, Option, type Scope, TestClock } from "effect"
import { probe, sharedMemory } from "./support.js"

/** Lets forked fibers run up to their next suspension. */
const settle = Effect.repeatN(Effect.yieldNow(), 20)

const options = { lease: "3 seconds", heartbeat: "1 second" } as const

/** Work under a lease: one step every 100 ms, for ever, counted. */
const steps = () => {
  let count = 0
  const work = Effect.forever(Effect.zipRight(Effect.sleep("100 millis"), Effect.sync(() => count++)))
  return { work, count: () => count }
}

class Other extends Context.Tag("Other")<Other, number>() {}

/**
 * The ways an acquire ends up in a fiber that is gone before the work that relies on it runs, inside a region opened by
 * `Effect.scoped` or by `Lock.scoped`, which is the same on this line.
 */
const wrappedIn = (
  region: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, Exclude<R, Scope.Scope>>,
  suffix: string
): ReadonlyArray<
  readonly [string, (work: Effect.Effect<never>) => Effect.Effect<unknown, unknown, LockStore.LockStore>]
> => [
  [
    `Effect.timeout${suffix}`,
    (work) => region(Effect.zipRight(Effect.timeout(Lock.acquire("x", options), "5 seconds"), work))
  ],
  [
    `Effect.race${suffix}`,
    (work) => region(Effect.zipRight(Effect.race(Lock.acquire("x", options), Effect.never), work))
  ],
  [
    `a concurrent Effect.all${suffix}`,
    (work) => region(Effect.zipRight(Effect.all([Lock.acquire("x", options), Effect.void], { concurrency: 2 }), work))
  ],
  [
    `a merged layer${suffix}`,
    (work) =>
      region(
        work.pipe(
          Effect.provide(Layer.merge(Layer.scopedDiscard(Lock.acquire("x", options)), Layer.succeed(Other, 1)))
        )
      )
  ]
]

const wrapped = [...wrappedIn(Effect.scoped, ""), ...wrappedIn(Lock.scoped, " in Lock.scoped")]

describe("Lock.acquire: a lost lease stops the code that relies on it, however the acquire was wrapped", () => {
  for (const [label, run] of wrapped) {
    it.effect(`${label}: stolen`, () =>
      Effect.gen(function*() {
        const backing = sharedMemory()
        const [a, b] = yield* Effect.all([probe(backing), probe(backing)])
        const section = steps()
        const fiber = yield* Effect.fork(run(section.work).pipe(Effect.provide(a.layer)))
        yield* TestClock.adjust("1500 millis")
        expect(Option.isSome(yield* backing.forceRelease("x"))).toBe(true)
        yield* Effect.fork(
          Effect.scoped(Effect.zipRight(Lock.acquire("x"), Effect.never)).pipe(Effect.provide(b.layer))
        )
        yield* settle
        // The next renew (at 2 s) finds the new holder.
        yield* TestClock.adjust("600 millis")
        const exit = yield* Fiber.await(fiber)
        expect(Exit.isInterrupted(exit)).toBe(true)
        const stepsAtLoss = section.count()
        expect(stepsAtLoss).toBeLessThanOrEqual(20)
        yield* TestClock.adjust("5 seconds")
        expect(section.count()).toBe(stepsAtLoss)
      }))

    it.effect(`${label}: expired`, () =>
      Effect.gen(function*() {
        const process = yield* probe(sharedMemory())
        process.failing("renew", true)
        const section = steps()
        const fiber = yield* Effect.fork(run(section.work).pipe(Effect.provide(process.layer)))
        // lease 3 s - safety margin 0.3 s
        yield* TestClock.adjust("2699 millis")
        expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
        yield* TestClock.adjust("1 millis")
        const exit = yield* Fiber.await(fiber)
        expect(Exit.isInterrupted(exit)).toBe(true)
        const stepsAtLoss = section.count()
        yield* TestClock.adjust("10 seconds")
        expect(section.count()).toBe(stepsAtLoss)
      }))
  }
})

describe("Re-entry: a re-entered section never outlives the lease it borrowed", () => {
  it.effect("a fiber forked inside a scoped acquire that re-enters is stopped by the outer release", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const [a, b] = yield* Effect.all([probe(backing), probe(backing)])
      const child = steps()
      let childFiber: Fiber.RuntimeFiber<unknown, unknown> | undefined
      const outer = yield* Effect.fork(
        Effect.gen(function*() {
          yield* Effect.scoped(Effect.gen(function*() {
            yield* Lock.acquire("x", options)
            childFiber = yield* Effect.fork(Lock.withLock("x", child.work))
            yield* Effect.sleep("1 second")
          }))
          // The fiber that forked the child goes on: only the lease's end may stop the child.
          return yield* Effect.never
        }).pipe(Effect.provide(a.layer))
      )
      yield* TestClock.adjust("1 second")
      const error = yield* Effect.flip(Fiber.join(childFiber!))
      expect(error).toMatchObject({ _tag: "LockLost", reason: "released" })
      const stepsAtRelease = child.count()
      // Another process gets the lock at once, and the child does nothing more.
      const fence = yield* Lock.withLock("x", Effect.flatMap(Effect.sleep("2 seconds"), () => Effect.succeed(1))).pipe(
        Effect.provide(b.layer),
        Effect.fork
      )
      yield* TestClock.adjust("2 seconds")
      expect(yield* Fiber.join(fence)).toBe(1)
      expect(child.count()).toBe(stepsAtRelease)
      yield* Fiber.interrupt(outer)
    }))

  it.effect("a daemon forked inside withLock that re-enters fails with LockLost (released) when the section ends", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const process = yield* probe(backing)
      const child = steps()
      const daemon = yield* Lock.withLock(
        "x",
        Effect.gen(function*() {
          const daemon = yield* Effect.forkDaemon(Lock.withLock("x", child.work))
          yield* Effect.sleep("1 second")
          return daemon
        }),
        options
      ).pipe(Effect.provide(process.layer), Effect.fork)
      yield* TestClock.adjust("1 second")
      const daemonFiber = yield* Fiber.join(daemon)
      const error = yield* Effect.flip(Fiber.join(daemonFiber))
      expect(error._tag).toBe("LockLost")
      if (error._tag === "LockLost") expect(error.reason).toBe("released")
      // Released in the store after the borrower stopped.
      expect(Option.getOrThrow(yield* backing.inspect("x")).owner).toBeUndefined()
      const stepsAtRelease = child.count()
      yield* TestClock.adjust("5 seconds")
      expect(child.count()).toBe(stepsAtRelease)
    }))

  it.effect("nested withLock in one fiber still re-enters without a store call", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      const result = yield* Lock.withLock("x", Lock.withLock("x", Effect.succeed("inner"))).pipe(
        Effect.provide(process.layer)
      )
      expect(result).toBe("inner")
      expect(process.calls.tryAcquire).toBe(1)
      expect(process.calls.release).toBe(1)
    }))
})

describe("Re-entry: only a live lease is re-entered", () => {
  it.effect("a fiber forked under an earlier lease nests withLock later without blocking on itself", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      const later = yield* Lock.withLock(
        "x",
        Effect.forkDaemon(
          Effect.zipRight(
            Effect.sleep("1 second"),
            Lock.withLock("x", Lock.withLock("x", Effect.succeed("nested")), { wait: "forever" })
          )
        )
      ).pipe(Effect.provide(process.layer))
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(later)).toBe("nested")
      expect(process.calls.tryAcquire).toBe(2)
    }))

  it.effect("a fiber forked under a lease that was then lost acquires again instead of failing with the old loss", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const process = yield* probe(backing)
      const gate = yield* Effect.makeLatch(false)
      let daemon: Fiber.RuntimeFiber<string, unknown> | undefined
      const holder = yield* Lock.withLock(
        "x",
        Effect.gen(function*() {
          daemon = yield* Effect.forkDaemon(Effect.zipRight(gate.await, Lock.withLock("x", Effect.succeed("again"))))
          return yield* Effect.never
        }),
        options
      ).pipe(Effect.provide(process.layer), Effect.fork)
      yield* settle
      yield* backing.forceRelease("x")
      // The next renew (at 1 s) finds the lock no longer ours.
      yield* TestClock.adjust("1 second")
      expect(yield* Effect.flip(Fiber.join(holder))).toMatchObject({ _tag: "LockLost", reason: "freed" })
      yield* gate.open
      expect(yield* Fiber.join(daemon!)).toBe("again")
      expect(process.calls.tryAcquire).toBe(2)
    }))
})
