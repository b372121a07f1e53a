import { describe, expect, it } from "@effect/vitest"
import { Lock, type LockError, LockStore, Semaphore } from "@leasehold/lock"
import { Deferred, Effect, Exit, Fiber, Layer, Option, type Scope } from "effect"
import {
  forkChild,
  forkDetach,
  layerEffectDiscard,
  poll,
  reasons,
  regionGuard,
  Service,
  TestClock,
  warningLogger
} from "./effectLine.js"
import { probe, settle, sharedMemory } from "./support.js"

const options = { lease: "3 seconds", heartbeat: "1 second" } as const

/** Work under a lease: one step every 100 ms, for ever, counted. */
const steps = () => {
  let count = 0
  const work = Effect.forever(Effect.andThen(Effect.sleep("100 millis"), Effect.sync(() => count++)))
  return { work, count: () => count }
}

const Other = Service<number>("Other")

/** How a run ends when its lease is lost: `Lock.scoped` fails with the `LockLost`; a plain scope ends interrupted. */
type Ending = "LockLost" | "interrupted"

type Run = readonly [
  string,
  (work: Effect.Effect<never>) => Effect.Effect<unknown, unknown, LockStore.LockStore>,
  Ending
]

/**
 * The ways an acquire ends up in a fiber that is gone before the work that relies on it runs, inside a region that
 * names the fiber that goes on: `Lock.scoped`, or `Effect.scoped` where a join hook hands the lease on (Effect 3).
 */
const wrappedIn = (
  region: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, unknown, Exclude<R, Scope.Scope>>,
  suffix: string,
  ending: Ending
): ReadonlyArray<Run> => [
  [
    `Effect.timeout${suffix}`,
    (work) => region(Effect.andThen(Effect.timeout(Lock.acquire("x", options), "5 seconds"), work)),
    ending
  ],
  [
    `Effect.race${suffix}`,
    (work) => region(Effect.andThen(Effect.race(Lock.acquire("x", options), Effect.never), work)),
    ending
  ],
  [
    `a concurrent Effect.all${suffix}`,
    (work) => region(Effect.andThen(Effect.all([Lock.acquire("x", options), Effect.void], { concurrency: 2 }), work)),
    ending
  ],
  [
    `a merged layer${suffix}`,
    (work) =>
      region(
        work.pipe(Effect.provide(Layer.merge(layerEffectDiscard(Lock.acquire("x", options)), Layer.succeed(Other, 1))))
      ),
    ending
  ]
]

/** The acquire unwrapped: the fiber that acquired is the one that relies on the lease. */
const plain: Run = [
  "a plain scoped acquire",
  (work) => Effect.scoped(Effect.andThen(Lock.acquire("x", options), work)),
  "interrupted"
]

const wrapped = [
  ...wrappedIn(Lock.scoped, " in Lock.scoped", "LockLost"),
  ...(regionGuard ? [] : wrappedIn(Effect.scoped, "", "interrupted"))
]

/** Whether `exit` ended as `ending` says, for a loss of `reason`. */
const endedAs = (exit: Exit.Exit<unknown, unknown>, ending: Ending, reason: string): boolean => {
  if (Exit.isSuccess(exit)) return false
  const parts = reasons(exit.cause)
  if (ending === "interrupted") return parts.length > 0 && parts.every((part) => part._tag === "Interrupt")
  return parts.length === 1 && parts[0]!._tag === "Fail" && (parts[0]!.error as LockError.LockLost).reason === reason
}

describe("Lock.acquire: a lost lease stops the code that relies on it, however the acquire was wrapped", () => {
  for (const [label, run, ending] of [plain, ...wrapped]) {
    it.effect(`${label}: stolen`, () =>
      Effect.gen(function*() {
        const backing = sharedMemory()
        const [a, b] = yield* Effect.all([probe(backing), probe(backing)])
        const section = steps()
        const fiber = yield* forkChild(run(section.work).pipe(Effect.provide(a.layer)))
        yield* TestClock.adjust("1500 millis")
        expect(Option.isSome(yield* backing.forceRelease("x"))).toBe(true)
        yield* forkChild(
          Effect.scoped(Effect.andThen(Lock.acquire("x"), Effect.never)).pipe(Effect.provide(b.layer))
        )
        yield* settle
        // The next renew (at 2 s) finds the new holder.
        yield* TestClock.adjust("600 millis")
        const exit = yield* Fiber.await(fiber)
        expect(endedAs(exit, ending, "stolen")).toBe(true)
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
        const fiber = yield* forkChild(run(section.work).pipe(Effect.provide(process.layer)))
        // lease 3 s - safety margin 0.3 s
        yield* TestClock.adjust("2699 millis")
        expect(Option.isNone(yield* poll(fiber))).toBe(true)
        yield* TestClock.adjust("1 millis")
        const exit = yield* Fiber.await(fiber)
        expect(endedAs(exit, ending, "expired")).toBe(true)
        const stepsAtLoss = section.count()
        yield* TestClock.adjust("10 seconds")
        expect(section.count()).toBe(stepsAtLoss)
      }))
  }
})

describe("Lock.scoped: who relies on a lease whose acquiring fiber ended", () => {
  /** Captures the messages logged at warning level. */
  const warnings = () => {
    const messages: Array<string> = []
    const layer = warningLogger((message) =>
      messages.push(String(Array.isArray(message) ? message.join(" ") : message))
    )
    return { messages, layer }
  }

  // Only a region guard can tell that nobody goes on with a lease; a join hook hands it to whoever joins, later.
  if (regionGuard) {
    it.effect("outside Lock.scoped a wrapped acquire is logged as a warning the moment its fiber ends", () =>
      Effect.gen(function*() {
        const process = yield* probe(sharedMemory())
        const logged = warnings()
        const fiber = yield* forkChild(
          Effect.scoped(Effect.andThen(Effect.timeout(Lock.acquire("x", options), "5 seconds"), Effect.never)).pipe(
            Effect.provide([process.layer, logged.layer])
          )
        )
        yield* settle
        expect(logged.messages).toHaveLength(1)
        expect(logged.messages[0]).toContain(`the fiber that acquired "x" ended while the lease is held`)
        expect(logged.messages[0]).toContain("Lock.scoped")
        yield* Fiber.interrupt(fiber)
      }))
  }

  it.effect("inside Lock.scoped nothing is logged, and the lease is released when the region ends", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const process = yield* probe(backing)
      const logged = warnings()
      yield* Lock.scoped(Effect.andThen(Effect.timeout(Lock.acquire("x", options), "5 seconds"), Effect.void)).pipe(
        Effect.provide([process.layer, logged.layer])
      )
      expect(logged.messages).toEqual([])
      expect(process.calls.release).toBe(1)
      expect(Option.getOrThrow(yield* backing.inspect("x")).owner).toBeUndefined()
    }))

  it.effect("an acquire whose own fiber goes on under the lease needs no region and logs nothing", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      const logged = warnings()
      yield* Effect.scoped(Effect.andThen(Lock.acquire("x", options), Effect.sleep("5 seconds"))).pipe(
        Effect.provide([process.layer, logged.layer]),
        forkChild
      )
      yield* TestClock.adjust("5 seconds")
      expect(logged.messages).toEqual([])
      expect(process.calls.release).toBe(1)
    }))

  it.effect("the region re-enters a lease it took over, without a store call", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      const fences = yield* Lock.scoped(
        Effect.gen(function*() {
          const lease = yield* Effect.timeout(Lock.acquire("x", options), "5 seconds")
          const nested = yield* Lock.withLock("x", Effect.succeed("nested"))
          const forked = yield* Fiber.join(yield* forkChild(Lock.withLock("x", Effect.succeed("forked"))))
          return [lease.fence, nested, forked]
        })
      ).pipe(Effect.provide(process.layer))
      expect(fences).toEqual([1, "nested", "forked"])
      expect(process.calls.tryAcquire).toBe(1)
      expect(process.calls.release).toBe(1)
    }))

  it.effect("a lease a child acquired and released inside the region never stops the region", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const process = yield* probe(backing)
      const result = yield* Lock.scoped(
        Effect.gen(function*() {
          yield* Effect.all([Lock.withLock("x", Effect.void, options), Lock.withLock("y", Effect.void, options)], {
            concurrency: 2
          })
          yield* backing.forceRelease("x")
          yield* TestClock.adjust("5 seconds")
          return "went on"
        })
      ).pipe(Effect.provide(process.layer))
      expect(result).toBe("went on")
    }))

  it.effect("a taken-over permit is lost like a lock: the region fails with LockLost", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      process.failing("renewPermits", true)
      const section = steps()
      const fiber = yield* forkChild(
        Lock.scoped(
          Effect.andThen(Effect.timeout(Semaphore.acquire("pool", { limit: 2, ...options }), "5 seconds"), section.work)
        ).pipe(Effect.provide(process.layer))
      )
      yield* TestClock.adjust("2699 millis")
      expect(Option.isNone(yield* poll(fiber))).toBe(true)
      yield* TestClock.adjust("1 millis")
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error).toMatchObject({ _tag: "LockLost", name: "pool", reason: "expired", permits: 1 })
      const stepsAtLoss = section.count()
      yield* TestClock.adjust("10 seconds")
      expect(section.count()).toBe(stepsAtLoss)
    }))
})

describe("Re-entry: a re-entered section never outlives the lease it borrowed", () => {
  it.effect("a fiber forked inside a scoped acquire that re-enters is stopped by the outer release", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const [a, b] = yield* Effect.all([probe(backing), probe(backing)])
      const child = steps()
      let childFiber: Fiber.Fiber<unknown, unknown> | undefined
      const outer = yield* forkChild(
        Effect.gen(function*() {
          yield* Effect.scoped(Effect.gen(function*() {
            yield* Lock.acquire("x", options)
            childFiber = yield* forkChild(Lock.withLock("x", child.work))
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
        forkChild
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
          const daemon = yield* forkDetach(Lock.withLock("x", child.work))
          yield* Effect.sleep("1 second")
          return daemon
        }),
        options
      ).pipe(Effect.provide(process.layer), forkChild)
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
        forkDetach(
          Effect.andThen(
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
      const gate = yield* Deferred.make<void>()
      let daemon: Fiber.Fiber<string, unknown> | undefined
      const holder = yield* Lock.withLock(
        "x",
        Effect.gen(function*() {
          daemon = yield* forkDetach(Effect.andThen(Deferred.await(gate), Lock.withLock("x", Effect.succeed("again"))))
          return yield* Effect.never
        }),
        options
      ).pipe(Effect.provide(process.layer), forkChild)
      yield* settle
      yield* backing.forceRelease("x")
      // The next renew (at 1 s) finds the lock no longer ours.
      yield* TestClock.adjust("1 second")
      expect(yield* Effect.flip(Fiber.join(holder))).toMatchObject({ _tag: "LockLost", reason: "freed" })
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.join(daemon!)).toBe("again")
      expect(process.calls.tryAcquire).toBe(2)
    }))
})
