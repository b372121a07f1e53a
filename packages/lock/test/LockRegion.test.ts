import { describe, expect, it } from "@effect/vitest"
import { Lock } from "@leasehold/lock"
import { Effect, Exit, Fiber, Layer, Option } from "effect"
import {
  forkChild,
  forkDetach,
  hasInterrupts,
  reasons,
  regionGuard,
  Service,
  TestClock,
  warningLogger
} from "./effectLine.js"
import { probe, repeatTimes, settle, sharedMemory } from "./support.js"

const options = { lease: "3 seconds", heartbeat: "1 second" } as const

/** Work under a lease: one step every 100 ms, `times` times (for ever if not given), counted. */
const steps = (times?: number) => {
  let count = 0
  const step = Effect.andThen(Effect.sleep("100 millis"), Effect.sync(() => count++))
  const work = times === undefined ? Effect.forever(step) : step.pipe(repeatTimes(times - 1))
  return { work, count: () => count }
}

/** Captures the messages logged at warning level. */
const warnings = () => {
  const messages: Array<string> = []
  const layer = warningLogger((message) => messages.push(String(Array.isArray(message) ? message.join(" ") : message)))
  return { messages, layer }
}

/** The message of the defect an exit died with, if it died. */
const defectOf = (exit: Exit.Exit<unknown, unknown>): string | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const defect = reasons(exit.cause).find((reason) => reason._tag === "Die")
  return defect?._tag === "Die" ? String(defect.defect) : undefined
}

const Other = Service<number>("Other")

describe("Lock.scoped: a lease taken over belongs to the fiber that goes on with it and what it forks afterwards", () => {
  for (const answered of ["at once", "later"] as const) {
    it.effect(`a sibling job of the region waits for the lock, not inside the other's section (store answers ${answered})`, () =>
      Effect.gen(function*() {
        const process = yield* probe(sharedMemory())
        if (answered === "later") yield* process.hold("tryAcquire", "before")
        let inside = 0
        let overlapped = false
        const section = (work: Effect.Effect<void>) =>
          Effect.suspend(() => {
            if (inside > 0) overlapped = true
            inside++
            return Effect.ensuring(work, Effect.sync(() => inside--))
          })
        const jobA = Effect.andThen(
          Effect.timeout(Lock.acquire("x", options), "5 seconds"),
          section(Effect.sleep("2 seconds"))
        )
        const jobB = Effect.andThen(
          Effect.sleep("1 second"),
          Effect.flip(Lock.withLock("x", section(Effect.void), { ...options, wait: "500 millis" }))
        )
        const fiber = yield* Lock.scoped(Effect.all([jobA, jobB], { concurrency: 2 })).pipe(
          Effect.provide(process.layer),
          forkChild
        )
        if (answered === "later") yield* Effect.andThen(process.held, process.open)
        yield* TestClock.adjust("3 seconds")
        const [, error] = yield* Fiber.join(fiber)
        expect(error._tag).toBe("LockNotAcquired")
        expect(overlapped).toBe(false)
        expect(process.calls.tryAcquire).toBe(1)
      }))
  }

  it.effect("a fiber the region forked before the wrapped acquire does not re-enter the lease", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      const result = yield* Lock.scoped(Effect.gen(function*() {
        const early = yield* forkChild(
          Effect.andThen(
            Effect.sleep("1 second"),
            Lock.withLock("x", Effect.succeed("re-entered"), { ...options, wait: "500 millis" })
          )
        )
        const lease = yield* Effect.timeout(Lock.acquire("x", options), "5 seconds")
        const late = yield* forkChild(Lock.withLock("x", Effect.succeed(lease.fence)))
        return { early: yield* Effect.flip(Fiber.join(early)), late: yield* Fiber.join(late), fence: lease.fence }
      })).pipe(Effect.provide(process.layer), forkChild)
      yield* TestClock.adjust("2 seconds")
      const { early, fence, late } = yield* Fiber.join(result)
      expect(early._tag).toBe("LockNotAcquired")
      expect(late).toBe(fence)
      expect(process.calls.tryAcquire).toBe(1)
    }))
})

describe("Lock.scoped: the region's fiber goes on with the lease", () => {
  it.effect("it and the fibers it forks afterwards re-enter a lease whose acquire waited for another holder", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const [a, b] = yield* Effect.all([probe(backing), probe(backing)])
      yield* forkChild(Lock.withLock("x", Effect.sleep("1 second")).pipe(Effect.provide(b.layer)))
      yield* settle
      const result = yield* Lock.scoped(Effect.gen(function*() {
        const lease = yield* Effect.timeout(Lock.acquire("x", { ...options, wait: "5 seconds" }), "10 seconds")
        const forked = yield* Fiber.join(yield* forkChild(Lock.withLock("x", Effect.succeed(lease.fence))))
        const nested = yield* Lock.withLock("x", Effect.succeed(lease.fence))
        return [lease.fence, forked, nested]
      })).pipe(Effect.provide(a.layer), forkChild)
      // The holder's release lets the waiting acquire through, in this fiber's step.
      yield* TestClock.adjust("2 seconds")
      const [fence, forked, nested] = yield* Fiber.join(result)
      expect([forked, nested]).toEqual([fence, fence])
    }))

  it.effect("it re-enters a lease a child acquired as soon as it has joined the child", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      const [fence, nested] = yield* Lock.scoped(Effect.gen(function*() {
        const child = yield* forkChild(Lock.acquire("x", options))
        // Joined before the child starts: the join hears of its end first, and this fiber goes on at once.
        const lease = yield* Fiber.join(child)
        return [lease.fence, yield* Lock.withLock("x", Effect.succeed(lease.fence))]
      })).pipe(Effect.provide(process.layer))
      expect(nested).toBe(fence)
      expect(process.calls.tryAcquire).toBe(1)
    }))
})

describe("Lock.scoped: a worker forked in the region that acquires on its own", () => {
  const forks = [
    ["forkChild", forkChild],
    ["forkDetach", forkDetach]
  ] as const

  for (const [label, fork] of forks) {
    it.effect(`a worker (${label}) that acquires after the region returned never interrupts the region's fiber`, () =>
      Effect.gen(function*() {
        const backing = sharedMemory()
        const [a, b] = yield* Effect.all([probe(backing), probe(backing)])
        const logged = warnings()
        const worker = steps(30)
        const run = Effect.gen(function*() {
          const forked = yield* Lock.scoped(fork(Effect.andThen(
            Effect.sleep("100 millis"),
            Effect.scoped(Effect.andThen(Effect.timeout(Lock.acquire("x", options), "5 seconds"), worker.work))
          )))
          // Unrelated code, after the region: nothing a lock does may stop it.
          yield* Effect.sleep("5 seconds")
          return yield* Fiber.await(forked)
        })
        const fiber = yield* run.pipe(Effect.provide([a.layer, logged.layer]), forkChild)
        yield* TestClock.adjust("1 second")
        expect(Option.isSome(yield* backing.forceRelease("x"))).toBe(true)
        yield* forkChild(
          Effect.scoped(Effect.andThen(Lock.acquire("x"), Effect.never)).pipe(Effect.provide(b.layer))
        )
        yield* settle
        // The worker's next renew (at 1.1 s) finds the new holder.
        yield* TestClock.adjust("5 seconds")
        const workerExit = yield* Fiber.join(fiber)
        if (regionGuard) {
          // The guard ended with its region: the worker's wrapped acquire was refused as it ended.
          expect(defectOf(workerExit)).toContain("after the Lock.scoped region it was forked in had ended")
          expect(logged.messages.some((message) => message.includes(`the fiber that acquired "x" ended`))).toBe(true)
        } else {
          // The worker, which waited for the acquire, holds the lease: its loss stops it.
          expect(hasInterrupts(workerExit)).toBe(true)
          expect(worker.count()).toBeLessThan(30)
        }
      }))
  }

  const detachedLoss = regionGuard
    ? "its loss stops the region and is reported"
    : "its loss stops the worker, not the region"
  it.effect(`a detached worker of an open region: ${detachedLoss}`, () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      process.failing("renew", true)
      const logged = warnings()
      const worker = steps(60)
      const run = Lock.scoped(Effect.gen(function*() {
        const forked = yield* forkDetach(
          Effect.scoped(Effect.andThen(Effect.timeout(Lock.acquire("x", options), "5 seconds"), worker.work))
        )
        yield* Effect.sleep("10 seconds")
        return yield* Fiber.await(forked)
      }))
      const region = yield* run.pipe(Effect.provide([process.layer, logged.layer]), forkChild)
      // lease 3 s - safety margin 0.3 s
      yield* TestClock.adjust("2700 millis")
      const stepsAtLoss = worker.count()
      if (regionGuard) {
        // The region's fiber took the lease over: its loss fails the region.
        expect(yield* Effect.flip(Fiber.join(region))).toMatchObject({ _tag: "LockLost", reason: "expired" })
        expect(logged.messages.some((message) => message.includes("code outside the region"))).toBe(true)
        yield* TestClock.adjust("10 seconds")
        expect(worker.count()).toBe(60)
      } else {
        yield* TestClock.adjust("10 seconds")
        // The region went on to its end, and returns the worker's exit.
        expect(hasInterrupts(yield* Fiber.join(region))).toBe(true)
        expect(worker.count()).toBe(stepsAtLoss)
      }
    }))
})

describe("Re-entry survives the wrappers that put the fiber's context back as they end", () => {
  const wrappers: ReadonlyArray<readonly [string, <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>]> =
    [
      ["Effect.withSpan", (self) => Effect.withSpan(self, "a")],
      ["Effect.annotateLogs", (self) => Effect.annotateLogs(self, "job", "a")],
      ["Effect.withLogSpan", (self) => Effect.withLogSpan(self, "a")],
      ["Effect.provideService", (self) => Effect.provideService(self, Other, 1)],
      ["Effect.provide", (self) => Effect.provide(self, Layer.succeed(Other, 1))]
    ]

  for (const [label, wrap] of wrappers) {
    it.effect(`an acquire inside ${label} is re-entered by the same fiber after it`, () =>
      Effect.gen(function*() {
        const process = yield* probe(sharedMemory())
        const [first, second, nested] = yield* Effect.gen(function*() {
          const first = yield* wrap(Lock.acquire("k", options))
          const second = yield* Lock.acquire("k", options)
          const nested = yield* Lock.withLock("k", Effect.succeed("nested"))
          return [first.fence, second.fence, nested]
        }).pipe(Effect.scoped, Effect.provide(process.layer))
        expect(second).toBe(first)
        expect(nested).toBe("nested")
        expect(process.calls.tryAcquire).toBe(1)
        expect(process.calls.release).toBe(1)
      }))
  }

  it.effect("a fiber forked inside the wrapper after the acquire re-enters the lease", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      const [fence, forked] = yield* Effect.gen(function*() {
        const lease = yield* Lock.acquire("k", options)
        const child = yield* forkChild(Lock.acquire("k", options).pipe(Effect.map((lease) => lease.fence)))
        return [lease.fence, yield* Fiber.join(child)]
      }).pipe(Effect.withSpan("a"), Effect.scoped, Effect.provide(process.layer))
      expect(forked).toBe(fence)
      expect(process.calls.tryAcquire).toBe(1)
    }))
})

describe("A wrapped acquire outside Lock.scoped", () => {
  const outside = regionGuard
    ? "is refused: the scope it was acquired into fails with a defect as it closes, after releasing the lock"
    : "needs only Effect.scoped on this line: the scope closes normally, nothing is logged, and the lock is released"
  it.effect(outside, () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const process = yield* probe(backing)
      const logged = warnings()
      const fiber = yield* Effect.scoped(
        Effect.andThen(Effect.timeout(Lock.acquire("x", options), "5 seconds"), Effect.sleep("1 second"))
      ).pipe(Effect.provide([process.layer, logged.layer]), forkChild)
      yield* TestClock.adjust("1 second")
      const exit = yield* Fiber.await(fiber)
      if (regionGuard) {
        expect(defectOf(exit)).toContain("Run that code in Lock.scoped")
        expect(logged.messages).toHaveLength(1)
      } else {
        expect(Exit.isSuccess(exit)).toBe(true)
        expect(logged.messages).toEqual([])
      }
      expect(process.calls.release).toBe(1)
      expect(Option.getOrThrow(yield* backing.inspect("x")).owner).toBeUndefined()
    }))

  it.effect("the same program in Lock.scoped completes, and nothing is logged", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      const logged = warnings()
      const fiber = yield* Lock.scoped(
        Effect.andThen(Effect.timeout(Lock.acquire("x", options), "5 seconds"), Effect.sleep("1 second"))
      ).pipe(Effect.provide([process.layer, logged.layer]), forkChild)
      yield* TestClock.adjust("1 second")
      const exit = yield* Fiber.await(fiber)
      expect(Exit.isSuccess(exit)).toBe(true)
      expect(logged.messages).toEqual([])
    }))
})
