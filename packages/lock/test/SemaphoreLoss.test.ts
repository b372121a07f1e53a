import { describe, expect, it } from "@effect/vitest"
import { type LockStore, Semaphore } from "@leasehold/lock"
import { Clock, Effect, Fiber, Option } from "effect"
import { forkChild, hasInterrupts, poll, TestClock, warningLogger, withFixedRandom } from "./effectLine.js"
import { probe, recordingTracer, settle, sharedMemory } from "./support.js"

const record = (store: LockStore.LockStore, name: string) => Effect.map(store.inspectSemaphore(name), Option.getOrThrow)

describe("Semaphore: heartbeat, loss and release", () => {
  it.effect("the heartbeat keeps permits held past their lease, one renew per heartbeat", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const [a, b] = yield* Effect.all([probe(shared), probe(shared)])
      const permits = yield* Semaphore.acquire("kept", { limit: 1, lease: "3 seconds", maxClockSkew: 0 }).pipe(
        Effect.provide(a.layer)
      )
      yield* TestClock.adjust("10 seconds")
      expect(yield* permits.isHeld).toBe(true)
      // Renewed every lease / 3, the first in the second half of the first heartbeat.
      expect(a.calls.renewPermits).toBeGreaterThanOrEqual(9)
      expect(a.calls.renewPermits).toBeLessThanOrEqual(10)
      const holder = (yield* record(shared, "kept")).holders[0]!
      expect(holder.leaseUntil).toBeGreaterThan(10_000)
      // Nobody can take them over meanwhile.
      const other = yield* Effect.flip(Semaphore.acquire("kept", { limit: 1 }).pipe(Effect.provide(b.layer)))
      expect(other._tag).toBe("LockNotAcquired")
    }).pipe(Effect.scoped))

  it.effect("permits whose renews fail are lost at the local deadline: the section is interrupted with LockLost", () =>
    Effect.gen(function*() {
      const a = yield* probe(sharedMemory())
      a.failing("renewPermits", true)
      let interruptedAt: number | undefined
      const section = Effect.never.pipe(
        Effect.onInterrupt(() => Effect.map(Clock.currentTimeMillis, (now) => interruptedAt = now))
      )
      const warnings: Array<unknown> = []
      const keepWarnings = warningLogger((message) => warnings.push(message))
      const running = yield* forkChild(
        Semaphore.withPermits("unrenewed", section, { limit: 2, lease: "10 seconds" }).pipe(
          Effect.provide(a.layer),
          Effect.provide(keepWarnings)
        )
      )
      yield* settle
      yield* TestClock.adjust("8999 millis")
      expect(interruptedAt).toBeUndefined()
      yield* TestClock.adjust("1 milli")
      const error = yield* Effect.flip(Fiber.join(running))
      // The local deadline: lease - safetyMargin (lease / 10).
      expect(interruptedAt).toBe(9_000)
      expect(error._tag).toBe("LockLost")
      if (error._tag !== "LockLost") return
      expect([error.name, error.reason, error.permits]).toEqual(["unrenewed", "expired", 1])
      expect(error.message).toContain(`1 permit(s) of semaphore "unrenewed"`)
      // The warnings on the way say what was leased.
      expect(String(warnings[0])).toContain(`semaphore "unrenewed" is at risk`)
      // Given back while the store's lease lasts, so that the next holder need not wait for it.
      expect(a.calls.releasePermits).toBe(1)
    }))

  it.effect("permits removed from the record are lost at the next renew, as stolen", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const a = yield* probe(shared)
      const running = yield* forkChild(
        Semaphore.withPermits("removed", Effect.never, { limit: 1, lease: "30 seconds" }).pipe(Effect.provide(a.layer))
      )
      yield* settle
      const held = (yield* record(shared, "removed")).holders[0]!
      // An operator gives the permits back in the holder's place.
      yield* shared.releasePermits({ name: "removed", owner: held.owner, fence: held.fence, permits: 1 })
      // The first renew goes at the latest point it may (the draw below): one heartbeat in.
      yield* TestClock.adjust("9999 millis")
      expect(Option.isNone(yield* poll(running))).toBe(true)
      yield* TestClock.adjust("1 milli")
      const error = yield* Effect.flip(Fiber.join(running))
      expect(error._tag === "LockLost" && [error.reason, error.owner, error.permits]).toEqual(["stolen", held.owner, 1])
      expect(error.message).toContain("no longer in the semaphore's record")
    }).pipe(withFixedRandom([0])))

  it.effect("a loss of scoped permits interrupts the fiber that acquired them", () =>
    Effect.gen(function*() {
      const a = yield* probe(sharedMemory())
      a.failing("renewPermits", true)
      const holder = yield* forkChild(
        Effect.scoped(
          Effect.andThen(
            Semaphore.acquire("scoped-loss", { limit: 1, lease: "10 seconds" }).pipe(Effect.provide(a.layer)),
            Effect.never
          )
        )
      )
      yield* settle
      yield* TestClock.adjust("8 seconds")
      expect(Option.isNone(yield* poll(holder))).toBe(true)
      yield* TestClock.adjust("1 second")
      expect(hasInterrupts(yield* Fiber.await(holder))).toBe(true)
    }))

  it.effect("the scope's close gives the permits back, once, and the status says Released", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const a = yield* probe(shared)
      const permits = yield* Effect.scoped(
        Semaphore.acquire("closing", { limit: 3, permits: 2 }).pipe(Effect.provide(a.layer))
      )
      expect((yield* permits.status)._tag).toBe("Released")
      expect(a.calls.releasePermits).toBe(1)
      const stored = yield* record(shared, "closing")
      expect([stored.used, stored.holders.length]).toEqual([0, 0])
    }))

  it.effect("acquire, renew and release are traced as the semaphore's, with its name, limit, permits and fence", () =>
    Effect.gen(function*() {
      const { spans, tracer } = recordingTracer()
      const a = yield* probe(sharedMemory())
      yield* Effect.scoped(
        Effect.andThen(
          Semaphore.acquire("traced", { limit: 4, permits: 3, lease: "3 seconds" }),
          TestClock.adjust("2 seconds")
        )
      ).pipe(Effect.provide(a.layer), Effect.withTracer(tracer))
      const byName = (name: string) => spans.filter((span) => span.name === name)
      const [acquire] = byName("Semaphore.acquire")
      expect(acquire?.attributes.get("semaphore.name")).toBe("traced")
      expect(acquire?.attributes.get("semaphore.limit")).toBe(4)
      expect(acquire?.attributes.get("semaphore.permits")).toBe(3)
      expect(acquire?.attributes.get("semaphore.fence")).toBeTypeOf("number")
      expect(byName("Semaphore.renew").length).toBeGreaterThanOrEqual(1)
      expect(byName("Semaphore.release").length).toBe(1)
      expect(byName("Lock.renew")).toEqual([])
    }))
})
