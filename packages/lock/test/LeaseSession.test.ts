import { describe, expect, it } from "@effect/vitest"
import * as LeaseSessionCore from "@leasehold/core/session/LeaseSession"
import { LeaseSession, Lock, LockStore } from "@leasehold/lock"
import { Clock, Effect, Exit, Fiber, Option } from "effect"
import { forkChild, TestClock } from "./effectLine.js"
import { probe, repeatTimes, settle, sharedMemory } from "./support.js"

const sessionOptions = { lease: "30 seconds", heartbeat: "10 seconds", safetyMargin: "3 seconds" } as const

/** Moves the clock in steps of 500 ms, letting the fibers it wakes finish their work in between. */
const advance = (ms: number) => Effect.andThen(TestClock.adjust("500 millis"), settle).pipe(repeatTimes(ms / 500))

const recordOf = (store: LockStore.LockStore, name: string) =>
  Effect.map(store.inspect(name), (record) => Option.getOrThrow(record))

describe("LeaseSession", () => {
  it.effect("locks acquired under a session name it, and one heartbeat keeps them all", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const process = yield* probe(shared)
      const names = Array.from({ length: 20 }, (_, i) => `tenant-${i}`)
      const session = yield* Effect.gen(function*() {
        const session = yield* LeaseSession.CurrentLeaseSession
        yield* Effect.forEach(names, (name) => Lock.acquire(name), { discard: true })
        for (const name of names) {
          const record = yield* recordOf(shared, name)
          expect(LeaseSessionCore.sessionOf(record)).toBe(session!.id)
        }
        yield* advance(60_000)
        // Every lock still held, with the session's renews alone: one per heartbeat, none per lock.
        for (const name of names) expect((yield* recordOf(shared, name)).owner).toBeDefined()
        expect(process.calls.renew).toBeGreaterThanOrEqual(5)
        expect(process.calls.renew).toBeLessThanOrEqual(7)
        return session!
      }).pipe(Effect.scoped, Effect.provide(LeaseSession.layer(sessionOptions)), Effect.provide(process.layer))
      // The locks were released with their scope, then the session's record with the layer.
      for (const name of names) expect((yield* recordOf(shared, name)).owner).toBeUndefined()
      expect((yield* recordOf(shared, LeaseSessionCore.recordName(session.id))).owner).toBeUndefined()
    }))

  it.effect("losing the session loses every lock under it at the session's deadline, before another process gets one", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const process = yield* probe(shared)
      // The session's renews fail from the start, as when the store can not be reached.
      process.failing("renew", true)
      const startedAt = yield* Clock.currentTimeMillis
      const sectionsEnded: Array<number> = []
      const holding = yield* forkChild(
        Effect.forEach(["a", "b", "c"], (name) =>
          Effect.exit(
            Lock.withLock(
              name,
              Effect.never.pipe(
                Effect.onInterrupt(() => Effect.map(Clock.currentTimeMillis, (t) => sectionsEnded.push(t)))
              )
            )
          ), { concurrency: "unbounded" }).pipe(
            Effect.provide(LeaseSession.layer(sessionOptions)),
            Effect.provide(process.layer)
          )
      )
      yield* settle
      // Another process waits for one of them, and takes it over once the session can be judged dead.
      const other = yield* forkChild(
        Lock.withLock("a", Clock.currentTimeMillis, { wait: "2 minutes", maxClockSkew: "10 seconds" }).pipe(
          Effect.provideService(LockStore.LockStore, LockStore.processView(shared))
        )
      )
      yield* advance(60_000)
      const exits = yield* Fiber.join(holding)
      for (const exit of exits) {
        expect(Exit.isFailure(exit)).toBe(true)
        const error = yield* Effect.flip(exit)
        expect(error._tag).toBe("LockLost")
        if (error._tag === "LockLost") {
          expect(error.session).toBeDefined()
          expect(error.message).toContain("lease session")
        }
      }
      // Lost at the session's deadline (lease less the safety margin), and given back once each section had ended:
      // the other process gets in after every section stopped.
      expect(sectionsEnded).toHaveLength(3)
      for (const ended of sectionsEnded) expect(ended - startedAt).toBeLessThanOrEqual(27_000)
      const takenAt = yield* Fiber.join(other)
      expect(takenAt).toBeGreaterThanOrEqual(Math.max(...sectionsEnded))
    }))

  it.effect("a lock asked for under a session already lost is not acquired, and its section never runs", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const process = yield* probe(shared)
      process.failing("renew", true)
      let ran = false
      const refused = yield* Effect.gen(function*() {
        const session = (yield* LeaseSession.CurrentLeaseSession)!
        yield* advance(30_000)
        expect(yield* session.isHeld).toBe(false)
        return yield* Effect.flip(Lock.withLock("late", Effect.sync(() => ran = true)))
      }).pipe(Effect.provide(LeaseSession.layer(sessionOptions)), Effect.provide(process.layer))
      expect(ran).toBe(false)
      expect(refused._tag).toBe("LockNotAcquired")
      if (refused._tag === "LockNotAcquired") {
        expect(refused.session).toBeDefined()
        expect(refused.message).toContain("lease session")
      }
      expect(Option.isNone(yield* shared.inspect("late"))).toBe(true)
    }))

  it.effect("a data update keeps the lock under its session; a release frees the lock and leaves the session held", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      yield* Effect.gen(function*() {
        const session = (yield* LeaseSession.CurrentLeaseSession)!
        yield* Lock.withLock("report", (lease) => lease.updateData("half done"))
        const lease = yield* Lock.acquire("other")
        yield* lease.updateData("payload")
        const record = yield* recordOf(shared, "other")
        expect([LeaseSessionCore.sessionOf(record), record.data]).toEqual([session.id, "payload"])
        expect((yield* recordOf(shared, "report")).owner).toBeUndefined()
        expect(yield* session.isHeld).toBe(true)
      }).pipe(
        Effect.scoped,
        Effect.provide(LeaseSession.layer(sessionOptions)),
        Effect.provideService(LockStore.LockStore, shared)
      )
    }))

  it.effect("a lock under a session hands off; the process that resumes it holds it on a lease of its own", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const handoff = yield* Effect.scoped(
        Effect.flatMap(Lock.acquire("migration", { lease: "20 seconds" }), Lock.handOff)
      )
        .pipe(Effect.provide(LeaseSession.layer(sessionOptions)), Effect.provideService(LockStore.LockStore, shared))
      // The lease it passes on is the acquire's own, not the fixed fields of a lock under a session.
      expect(handoff.leaseMs).toBe(20_000)
      const resumed = yield* Effect.scoped(Effect.gen(function*() {
        const lease = yield* Lock.resume(handoff)
        const record = yield* recordOf(shared, "migration")
        expect([record.owner, LeaseSessionCore.sessionOf(record)]).toEqual([lease.owner, undefined])
        return lease.fence
      })).pipe(Effect.provideService(LockStore.LockStore, LockStore.processView(shared)))
      expect(resumed).toBe(handoff.fence)
    }))

  it.effect("a lock of another store than the session's is held on its own lease", () =>
    Effect.gen(function*() {
      const sessionStore = sharedMemory()
      const otherStore = sharedMemory()
      yield* Effect.gen(function*() {
        const session = yield* LeaseSession.make(sessionOptions)
        yield* Lock.acquire("elsewhere").pipe(
          Effect.provideService(LeaseSession.CurrentLeaseSession, session),
          Effect.provideService(LockStore.LockStore, otherStore)
        )
        const record = yield* recordOf(otherStore, "elsewhere")
        expect(LeaseSessionCore.sessionOf(record)).toBeUndefined()
      }).pipe(Effect.scoped, Effect.provideService(LockStore.LockStore, sessionStore))
    }))
})
