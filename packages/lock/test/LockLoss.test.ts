import { describe, expect, it } from "@effect/vitest"
import { Lock, LockStore } from "@leasehold/lock"
import { type Cause, Clock, Deferred, Effect, Exit, Fiber, Option, Scope } from "effect"
import {
  forkChild,
  hasInterrupts,
  poll,
  reasons,
  TestClock,
  warningLogger,
  withFixedRandom,
  yieldNow
} from "./effectLine.js"
import { probe, repeatTimes, settle, sharedMemory } from "./support.js"

const now = Clock.currentTimeMillis

/** A logger layer that keeps every warning, its message and its cause, for a test to read. */
const warningLog = () => {
  const warnings: Array<{ readonly message: unknown; readonly cause: Cause.Cause<unknown> }> = []
  return { warnings, capture: warningLogger((message, cause) => warnings.push({ message, cause })) }
}

describe("Lock: loss and release", () => {
  it.effect("loss by steal interrupts the section at the next renew and reports the new holder", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const [a, b] = yield* Effect.all([probe(backing), probe(backing)])
      let interruptedAt: number | undefined
      const section = Effect.never.pipe(Effect.onInterrupt(() => Effect.map(now, (t) => interruptedAt = t)))
      const victim = yield* forkChild(
        Lock.withLock("stolen", section, { lease: "30 seconds" }).pipe(Effect.provide(a.layer))
      )
      yield* settle
      // An operator force-releases, and another process takes the lock.
      yield* b.service.forceRelease("stolen")
      const thief = yield* Lock.acquire("stolen", { holder: "thief" }).pipe(Effect.provide(b.layer))
      // The first renew goes at the latest point it may (the draw below): one heartbeat in.
      yield* TestClock.adjust("10 seconds")
      const exit = yield* Fiber.await(victim)
      expect(interruptedAt).toBe(10_000)
      const error = yield* Effect.flip(exit)
      expect(error._tag).toBe("LockLost")
      if (error._tag !== "LockLost") return
      expect(error.reason).toBe("stolen")
      expect(error.by?.owner).toBe(thief.owner)
      expect(error.by?.holder).toBe("thief")
      expect(error.message).toContain("thief")
      // The victim does not release what is no longer its own; the thief still holds.
      expect(a.calls.release).toBe(0)
      expect(Option.getOrThrow(yield* backing.inspect("stolen")).owner).toBe(thief.owner)
    }).pipe(Effect.scoped, withFixedRandom([0])))

  it.effect("a lock force-released by an operator is lost at the next renew as freed: the store shows it free", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const [a, operator] = yield* Effect.all([probe(backing), probe(backing)])
      const { capture, warnings } = warningLog()
      const victim = yield* forkChild(
        Lock.withLock("forced", Effect.never, { lease: "30 seconds" }).pipe(
          Effect.provide(a.layer),
          Effect.provide(capture)
        )
      )
      yield* settle
      const held = Option.getOrThrow(yield* backing.inspect("forced"))
      yield* operator.service.forceRelease("forced")
      // The first renew goes at the latest point it may (the draw below): one heartbeat in.
      yield* TestClock.adjust("10 seconds")
      const error = yield* Effect.flip(Fiber.join(victim))
      expect(error._tag).toBe("LockLost")
      if (error._tag !== "LockLost") return
      expect([error.reason, error.by, error.fence, error.owner]).toEqual(["freed", undefined, held.fence, held.owner])
      expect(error.message).toContain(`lock "forced" (fence ${held.fence}) was lost: the store shows it free`)
      expect(error.message).toContain("forceRelease")
      expect(error.message).not.toContain("held by")
      // The holder's log line says the same.
      expect(warnings.map((warning) => String(warning.message))).toEqual([error.message])
      // Nothing to give back: the lock stays free for whoever comes next.
      expect(a.calls.release).toBe(0)
      expect(Option.getOrThrow(yield* backing.inspect("forced")).owner).toBeUndefined()
    }).pipe(withFixedRandom([0])))

  it.effect("a lease lost by expiry is released while the store's lease lasts, and once it is over too", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      // The section can not be stopped for `holdMs`: its scope closes, and the release runs, only then.
      const releasesAfter = (name: string, holdMs: number) =>
        Effect.gen(function*() {
          const process = yield* probe(backing)
          process.failing("renew", true)
          const holder = yield* forkChild(
            Effect.scoped(
              Effect.andThen(
                Lock.acquire(name, { lease: "3 seconds", safetyMargin: "300 millis" }),
                Effect.uninterruptible(Effect.sleep(`${holdMs} millis`))
              )
            ).pipe(Effect.provide(process.layer))
          )
          yield* settle
          yield* TestClock.adjust("10 seconds")
          yield* Fiber.await(holder)
          yield* settle
          return process.calls.release
        })
      // Lost at 2.7 s (the local deadline); the store's lease ends at 3 s. A process that gets to its release only
      // after that (paused, starved of CPU) still releases: nobody takes the lock over before leaseUntil + skew (13 s
      // here), and the release, conditioned on owner and fence, frees it for the next holder at once.
      expect(yield* releasesAfter("in-time", 2_900)).toBe(1)
      expect(yield* releasesAfter("behind", 3_100)).toBe(1)
      expect(Option.getOrThrow(yield* backing.inspect("in-time")).owner).toBeUndefined()
      expect(Option.getOrThrow(yield* backing.inspect("behind")).owner).toBeUndefined()
    }))

  it.effect("a failed release is logged as one line with its reason, without the cause's stack", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      const { capture, warnings } = warningLog()
      process.failing("release", true)
      yield* Lock.withLock("failing-release", Effect.void).pipe(
        Effect.provide(process.layer),
        Effect.provide(capture)
      )
      yield* TestClock.adjust("10 seconds")
      expect(process.calls.release).toBe(3)
      expect(warnings).toHaveLength(1)
      expect(String(warnings[0]!.message)).toContain("failed (injected release failure)")
      expect(reasons(warnings[0]!.cause)).toEqual([])
    }))

  it.effect("a failed clean-up after an unfinished acquire is logged as one line with its reason, without a stack", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      const { capture, warnings } = warningLog()
      // The acquiring write fails after it may have applied, and the release that would give it back fails too.
      process.failing("tryAcquire", true)
      process.failing("release", true)
      const exit = yield* Lock.withLock("unfinished", Effect.void, { wait: "0 millis" }).pipe(
        Effect.provide(process.layer),
        Effect.provide(capture),
        Effect.exit
      )
      yield* settle
      expect(Exit.isFailure(exit)).toBe(true)
      expect(process.calls.release).toBe(1)
      expect(warnings).toHaveLength(1)
      expect(String(warnings[0]!.message)).toContain("could not clean up")
      expect(String(warnings[0]!.message)).toContain("(injected release failure)")
      expect(reasons(warnings[0]!.cause)).toEqual([])
    }))

  it.effect("failing renews are retried with backoff until the deadline, then the lock is lost exactly then", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      process.failing("renew", true)
      const fiber = yield* forkChild(
        Lock.withLock("flaky", Effect.never, { lease: "30 seconds" }).pipe(Effect.provide(process.layer))
      )
      yield* TestClock.adjust("26999 millis")
      expect(Option.isNone(yield* poll(fiber))).toBe(true)
      expect(process.calls.renew).toBeGreaterThan(3)
      yield* TestClock.adjust("1 millis")
      const error = yield* Effect.flip(yield* Fiber.await(fiber))
      expect(error._tag).toBe("LockLost")
      if (error._tag === "LockLost") expect(error.reason).toBe("expired")
      // A lock lost by expiry may still be ours in the store: it is released so others need not wait.
      process.failing("renew", false)
      expect(process.calls.release).toBe(1)
    }))

  it.effect("a renew that recovers before the deadline keeps the lock, from at risk back to held", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      process.failing("renew", true)
      const done = yield* Deferred.make<void>()
      const fiber = yield* forkChild(
        Lock.withLock("recovering", Deferred.await(done), { lease: "30 seconds" }).pipe(Effect.provide(process.layer))
      )
      yield* TestClock.adjust("20 seconds")
      process.failing("renew", false)
      yield* TestClock.adjust("5 seconds")
      yield* Deferred.succeed(done, undefined)
      const exit = yield* Fiber.await(fiber)
      expect(Exit.isSuccess(exit)).toBe(true)
    }))

  for (const point of ["before", "after"] as const) {
    it.effect(
      `release racing a renew in flight (held ${point} the store applies it): never undone, 100 rounds`,
      () =>
        Effect.gen(function*() {
          let undone = 0
          for (let round = 0; round < 100; round++) {
            const backing = sharedMemory()
            const process = yield* probe(backing)
            const finish = yield* Deferred.make<void>()
            const holder = yield* forkChild(
              Lock.withLock("race", Deferred.await(finish), { lease: "3 seconds" }).pipe(Effect.provide(process.layer))
            )
            yield* settle
            yield* process.hold("renew", point)
            yield* TestClock.adjust("1 second")
            yield* process.held
            // The section ends while the renew is in flight; the release must wait for it.
            yield* Deferred.succeed(finish, undefined)
            yield* yieldNow.pipe(repeatTimes(round % 7))
            yield* process.open
            yield* Fiber.join(holder)
            yield* TestClock.adjust("10 seconds")
            const record = Option.getOrThrow(yield* backing.inspect("race"))
            if (record.owner !== undefined) undone++
            // Wait for the renew before releasing: one renew, then one release, in that order.
            expect(process.calls.renew).toBe(1)
            expect(process.calls.release).toBe(1)
          }
          expect(undone).toBe(0)
        }),
      60_000
    )
  }

  it.effect("Lock.acquire: losing the lease interrupts the fiber that acquired it", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      yield* process.hold("renew", "before")
      const fiber = yield* forkChild(
        Effect.scoped(Effect.andThen(Lock.acquire("scoped-loss", { lease: "3 seconds" }), Effect.never)).pipe(
          Effect.provide(process.layer)
        )
      )
      yield* TestClock.adjust("2699 millis")
      expect(Option.isNone(yield* poll(fiber))).toBe(true)
      yield* TestClock.adjust("1 millis")
      expect(hasInterrupts(yield* Fiber.await(fiber))).toBe(true)
      yield* process.open
    }))

  it.effect("the program's own failure is kept when the release fails", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      process.failing("release", true)
      const fiber = yield* forkChild(
        Lock.withLock("sticky", Effect.fail("boom" as const)).pipe(Effect.provide(process.layer))
      )
      yield* TestClock.adjust("10 seconds")
      const error = yield* Effect.flip(yield* Fiber.await(fiber))
      expect(error).toBe("boom")
      expect(process.calls.release).toBe(3)
    }))

  it.effect("a release the store never answers holds the caller for one attempt; the retries go on in the background", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      yield* process.hold("release", "before")
      const fiber = yield* forkChild(
        Lock.withLock("silent", Effect.succeed("result")).pipe(Effect.provide(process.layer))
      )
      // The first attempt gets 1 s.
      yield* TestClock.adjust("999 millis")
      expect(Option.isNone(yield* poll(fiber))).toBe(true)
      yield* TestClock.adjust("1 millis")
      expect(yield* Fiber.join(fiber)).toBe("result")
      // In the background: one more at once, then a last one after 1 s + 50 ms, and no more.
      expect(process.calls.release).toBe(2)
      yield* TestClock.adjust("1049 millis")
      expect(process.calls.release).toBe(2)
      yield* TestClock.adjust("1 millis")
      expect(process.calls.release).toBe(3)
      yield* TestClock.adjust("1 minute")
      expect(process.calls.release).toBe(3)
      yield* process.open
    }))

  it.effect("an acquire answered after its own deadline is not used: the section never overlaps the next holder", () =>
    Effect.gen(function*() {
      // Found by the safety checker (a slow tryAcquire answer): the write applies at 0 with a 3 s lease, the answer
      // arrives at 5 s, after another process took over at leaseUntil + skew.
      const backing = sharedMemory()
      const [a, b] = yield* Effect.all([probe(backing), probe(backing)])
      const options = { lease: 3_000, heartbeat: 1_000, maxClockSkew: 1_000, wait: "10 seconds" } as const
      const overlapsAt: Array<number> = []
      yield* a.hold("tryAcquire", "after")
      const late = yield* forkChild(
        Effect.scoped(Effect.gen(function*() {
          const lease = yield* Lock.acquire("late", options)
          const current = Option.getOrThrow(yield* backing.inspect("late"))
          if (current.owner !== lease.owner) overlapsAt.push(yield* now)
          return lease.fence
        })).pipe(Effect.provide(a.layer))
      )
      yield* a.held
      yield* TestClock.adjust("4500 millis")
      const otherScope = yield* Scope.make()
      const other = yield* Lock.acquire("late", options).pipe(
        Effect.provideService(Scope.Scope, otherScope),
        Effect.provide(b.layer)
      )
      expect(other.fence).toBe(2)
      yield* TestClock.adjust("500 millis")
      yield* a.open
      yield* settle
      expect(overlapsAt).toEqual([])
      // The late owner waits its turn instead and gets a newer fence once the other holder is done.
      yield* Scope.close(otherScope, Exit.void)
      yield* TestClock.adjust("5 seconds")
      expect(yield* Fiber.join(late)).toBe(3)
    }).pipe(Effect.scoped))

  it.effect("an acquire answered too late, with no wait left, fails saying so (not blaming another holder)", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const process = yield* probe(backing)
      yield* process.hold("tryAcquire", "after")
      const fiber = yield* forkChild(
        Lock.withLock("slow", Effect.void, { lease: 3_000, wait: 2_700 }).pipe(Effect.provide(process.layer))
      )
      yield* process.held
      // lease 3 s - safety margin 0.3 s: an answer after 2.7 s can not be used.
      yield* TestClock.adjust("2700 millis")
      yield* process.open
      const error = yield* Effect.flip(yield* Fiber.await(fiber))
      expect(error._tag).toBe("LockNotAcquired")
      if (error._tag === "LockNotAcquired") {
        expect(error.answeredAfterMs).toBe(2_700)
        expect(error.holder).toBeUndefined()
        expect(error.message).toContain("too late to use the lease safely")
      }
      // The write was given back.
      expect(Option.getOrThrow(yield* backing.inspect("slow")).owner).toBeUndefined()
    }))

  it.effect("fractional default durations still lose the lease exactly at the deadline", () =>
    Effect.gen(function*() {
      // Found by the safety checker: warnAt defaulted to lease / 3 = 666.67 ms, and the watchdog stalled.
      const process = yield* probe(sharedMemory())
      process.failing("renew", true)
      const fiber = yield* forkChild(
        Lock.withLock("fraction", Effect.never, { lease: 2_000, heartbeat: 600, safetyMargin: 400 }).pipe(
          Effect.provide(process.layer)
        )
      )
      yield* TestClock.adjust("1599 millis")
      expect(Option.isNone(yield* poll(fiber))).toBe(true)
      yield* TestClock.adjust("1 millis")
      const error = yield* Effect.flip(yield* Fiber.await(fiber))
      expect(error._tag).toBe("LockLost")
    }))

  it.effect("the lock is released when the section fails, dies or is interrupted", () =>
    Effect.gen(function*() {
      const store = LockStore.makeMemory()
      const run = <E>(section: Effect.Effect<void, E>) =>
        Effect.exit(Lock.withLock("cleanup", section)).pipe(Effect.provideService(LockStore.LockStore, store))
      yield* run(Effect.fail("failed"))
      yield* run(Effect.die("died"))
      yield* run(Effect.interrupt)
      const record = Option.getOrThrow(yield* store.inspect("cleanup"))
      expect(record.owner).toBeUndefined()
      expect(record.fence).toBe(3)
    }))

  it.effect("a heartbeat that dies declares the loss at once: the section does not run on without a keeper", () =>
    Effect.gen(function*() {
      const store = LockStore.intercept(
        LockStore.makeMemory(),
        (operation, call) => operation === "renew" ? Effect.die("renew died") : call
      )
      const fiber = yield* forkChild(
        Lock.withLock("orphan", Effect.never, { lease: "30 seconds" }).pipe(
          Effect.provideService(LockStore.LockStore, store),
          withFixedRandom([0])
        )
      )
      // The first renew, one heartbeat in, dies; nothing would renew the lease again.
      yield* TestClock.adjust("10 seconds")
      const error = yield* Effect.flip(yield* Fiber.await(fiber))
      expect(error._tag).toBe("LockLost")
      if (error._tag === "LockLost") expect(error.reason).toBe("expired")
    }))
})
