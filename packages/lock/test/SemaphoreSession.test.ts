import { describe, expect, it } from "@effect/vitest"
import * as LeaseSessionCore from "@leasehold/core/session/LeaseSession"
import { LeaseSession, LockStore, Semaphore } from "@leasehold/lock"
import { Clock, Effect, Fiber, Option } from "effect"
import { forkChild, TestClock } from "./effectLine.js"
import { probe, repeatTimes, settle, sharedMemory } from "./support.js"

const sessionOptions = { lease: "30 seconds", heartbeat: "10 seconds", safetyMargin: "3 seconds" } as const
const limit = 2
const permitOptions = { limit, wait: "2 minutes", pollInterval: "500 millis", maxClockSkew: "10 seconds" } as const

/** Moves the clock in steps of 500 ms, letting the fibers it wakes finish their work in between. */
const advance = (ms: number) => Effect.andThen(TestClock.adjust("500 millis"), settle).pipe(repeatTimes(ms / 500))

const semaphoreOf = (store: LockStore.LockStore, name: string) =>
  Effect.map(store.inspectSemaphore(name), (record) => Option.getOrThrow(record))

/** Another process, on its own lease, asking for every permit: it gets them once the session's holders are gone. */
const allPermitsIn = (store: LockStore.LockStore, extra: Partial<Semaphore.SemaphoreOptions> = {}) =>
  Semaphore.withPermits("pool", Clock.currentTimeMillis, { ...permitOptions, permits: limit, ...extra }).pipe(
    Effect.provideService(LockStore.LockStore, LockStore.processView(store))
  )

describe("semaphore permits under a lease session", () => {
  it.effect("name the session, and the session's heartbeat alone keeps them", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const process = yield* probe(shared)
      const id = yield* Effect.gen(function*() {
        const session = (yield* LeaseSession.CurrentLeaseSession)!
        const permits = yield* Semaphore.acquire("pool", permitOptions)
        yield* Semaphore.acquire("pool", permitOptions)
        expect(LeaseSessionCore.sessionOf(permits.record)).toBe(session.id)
        yield* advance(60_000)
        const record = yield* semaphoreOf(shared, "pool")
        expect(record.holders.map((holder) => LeaseSessionCore.sessionOf(holder))).toEqual([session.id, session.id])
        expect(yield* permits.isHeld).toBe(true)
        expect(process.calls.renewPermits).toBe(0)
        expect(process.calls.renew).toBeGreaterThanOrEqual(5)
        expect(process.calls.renew).toBeLessThanOrEqual(7)
        return session.id
      }).pipe(Effect.scoped, Effect.provide(LeaseSession.layer(sessionOptions)), Effect.provide(process.layer))
      // The permits were released with their scope, then the session's record with the layer.
      expect((yield* semaphoreOf(shared, "pool")).holders).toEqual([])
      expect(Option.getOrThrow(yield* shared.inspect(LeaseSessionCore.recordName(id))).owner).toBeUndefined()
    }))

  it.effect("are lost with the session, each section interrupted before another process removes them", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const process = yield* probe(shared)
      // The session's renews fail from the start, as when the store can not be reached.
      process.failing("renew", true)
      const startedAt = yield* Clock.currentTimeMillis
      const sectionsEnded: Array<number> = []
      const section = Effect.never.pipe(
        Effect.onInterrupt(() => Effect.map(Clock.currentTimeMillis, (t) => sectionsEnded.push(t)))
      )
      const holding = yield* forkChild(
        Effect.forEach(
          [1, 2],
          () => Effect.exit(Semaphore.withPermits("pool", section, permitOptions)),
          { concurrency: "unbounded" }
        ).pipe(Effect.provide(LeaseSession.layer(sessionOptions)), Effect.provide(process.layer))
      )
      yield* settle
      const other = yield* forkChild(allPermitsIn(shared))
      yield* advance(60_000)
      for (const exit of yield* Fiber.join(holding)) {
        const error = yield* Effect.flip(exit)
        expect(error._tag).toBe("LockLost")
        if (error._tag === "LockLost") expect(error.session).toBeDefined()
      }
      expect(sectionsEnded).toHaveLength(2)
      for (const ended of sectionsEnded) expect(ended - startedAt).toBeLessThanOrEqual(27_000)
      expect(yield* Fiber.join(other)).toBeGreaterThanOrEqual(Math.max(...sectionsEnded))
    }))

  for (const takeover of ["absolute", "observed"] as const) {
    it.effect(`${takeover}: are removed by another process only once the session is judged dead`, () =>
      Effect.gen(function*() {
        const shared = sharedMemory()
        // What a killed process leaves behind: its session's record and its holders, never renewed again.
        const session = yield* shared.tryAcquire({
          name: LeaseSessionCore.recordName("s1"),
          owner: "s1",
          holder: "host-a",
          leaseMs: 30_000,
          data: undefined,
          takeover: { _tag: "Absolute", maxClockSkewMs: 10_000 }
        })
        if (session._tag !== "Acquired") return expect.unreachable("the session's record is new")
        const held = yield* shared.tryAcquirePermits({
          name: "pool",
          owner: "holder-1",
          holder: "host-a",
          limit,
          permits: limit,
          leaseMs: 1,
          data: undefined,
          takeover: { _tag: "Absolute", maxClockSkewMs: 10_000 },
          session: "s1",
          expired: [],
          create: true
        })
        if (held._tag !== "Acquired") return expect.unreachable("the semaphore is new")
        const startedAt = yield* Clock.currentTimeMillis
        const waiter = yield* forkChild(allPermitsIn(shared, { takeover }))
        yield* advance(60_000)
        const takenAt = yield* Fiber.join(waiter)
        const deadAt = takeover === "absolute" ? session.record.leaseUntil + 10_000 : startedAt + 30_000
        expect(takenAt).toBeGreaterThanOrEqual(deadAt)
        // Within a poll interval of the first moment a read could find the session dead.
        expect(takenAt).toBeLessThanOrEqual(deadAt + 600)
        expect((yield* semaphoreOf(shared, "pool")).fence).toBeGreaterThan(held.record.fence)
      }))
  }

  it.effect("asked for under a session already lost, are not acquired, and the section never runs", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const process = yield* probe(shared)
      process.failing("renew", true)
      let ran = false
      const refused = yield* Effect.gen(function*() {
        yield* advance(30_000)
        return yield* Effect.flip(Semaphore.withPermits("pool", Effect.sync(() => ran = true), permitOptions))
      }).pipe(Effect.provide(LeaseSession.layer(sessionOptions)), Effect.provide(process.layer))
      expect(ran).toBe(false)
      expect(refused._tag).toBe("LockNotAcquired")
      if (refused._tag === "LockNotAcquired") expect(refused.session).toBeDefined()
      expect(Option.isNone(yield* shared.inspectSemaphore("pool"))).toBe(true)
    }))
})
