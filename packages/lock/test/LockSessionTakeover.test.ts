import { describe, expect, it } from "@effect/vitest"
import * as LeaseSession from "@leasehold/core/session/LeaseSession"
import * as SessionWaiting from "@leasehold/core/session/SessionWaiting"
import { Lock, LockStore } from "@leasehold/lock"
import { Clock, Effect, Exit, Fiber, Option } from "effect"
import { forkChild, TestClock } from "./effectLine.js"
import { type Probe, probe, repeatTimes, settle, sharedMemory } from "./support.js"

const sessionLeaseMs = 30_000
const maxClockSkewMs = 10_000
const options = { wait: "1 minute", pollInterval: "500 millis", maxClockSkew: "10 seconds" } as const

/** Moves the clock in steps of 250 ms, letting the fibers it wakes finish their work in between. */
const advance = (ms: number) => Effect.andThen(TestClock.adjust("250 millis"), settle).pipe(repeatTimes(ms / 250))

/** A session's record, as the process that holds it writes it: a lock record under the session's own name. */
const openSession = (store: LockStore.LockStore, id: string) =>
  Effect.flatMap(
    store.tryAcquire({
      name: LeaseSession.recordName(id),
      owner: id,
      holder: "host-a",
      leaseMs: sessionLeaseMs,
      data: undefined,
      takeover: { _tag: "Absolute", maxClockSkewMs }
    }),
    (result) => result._tag === "Acquired" ? Effect.succeed(result.record) : Effect.die("the session's record is new")
  )

/** A lock held under the session `id` by another process. */
const heldUnder = (store: LockStore.LockStore, name: string, id: string) =>
  Effect.flatMap(
    store.tryAcquire({
      name,
      owner: `${name}-holder`,
      holder: "host-a",
      leaseMs: 1,
      data: undefined,
      takeover: { _tag: "Absolute", maxClockSkewMs },
      session: id
    }),
    (result) => result._tag === "Acquired" ? Effect.succeed(result.record) : Effect.die("the lock is free")
  )

/** The session's heartbeat, every 10 s, for as long as the fiber runs. */
const heartbeat = (store: LockStore.LockStore, id: string, fence: number) =>
  Effect.forever(
    Effect.andThen(
      Effect.sleep("10 seconds"),
      store.renew({ name: LeaseSession.recordName(id), owner: id, fence, leaseMs: sessionLeaseMs })
    )
  )

/** A process's store that notes the name of every record its reads return ("none" for none), in order. */
const recordingReads = (process: Probe) => {
  const reads: Array<string> = []
  const counting = LockStore.intercept(process.service, (operation, run) =>
    operation === "inspect"
      ? Effect.tap(run, (found) =>
        Effect.sync(() => {
          const record = found as Option.Option<{ readonly name: string }>
          reads.push(Option.isSome(record) ? record.value.name : "none")
        }))
      : run)
  return { counting, reads }
}

const acquireIn = (store: LockStore.LockStore, name: string, extra: Lock.LockOptions = {}) =>
  Lock.withLock(name, Clock.currentTimeMillis, { ...options, ...extra }).pipe(
    Effect.provideService(LockStore.LockStore, LockStore.processView(store))
  )

describe("taking over a lock held under a lease session", () => {
  it.effect("never while the session is renewed, however long the lock's own lease fields say nothing", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const session = yield* openSession(shared, "s1")
      yield* heldUnder(shared, "job", "s1")
      const beat = yield* forkChild(heartbeat(shared, "s1", session.fence))
      const waiter = yield* forkChild(Effect.flip(acquireIn(shared, "job")))
      yield* advance(65_000)
      const refused = yield* Fiber.join(waiter)
      expect(refused._tag).toBe("LockNotAcquired")
      expect(refused.message).toContain("under lease session s1")
      yield* Fiber.interrupt(beat)
    }))

  it.effect("absolute: once the session's lease end plus the skew bound has passed, not before", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const session = yield* openSession(shared, "s1")
      const held = yield* heldUnder(shared, "job", "s1")
      const waiter = yield* forkChild(acquireIn(shared, "job"))
      yield* advance(60_000)
      const takenAt = yield* Fiber.join(waiter)
      expect(takenAt).toBeGreaterThan(session.leaseUntil + maxClockSkewMs)
      // Within a poll interval of the first moment a read could find the session dead.
      expect(takenAt).toBeLessThanOrEqual(session.leaseUntil + maxClockSkewMs + 600)
      const after = Option.getOrThrow(yield* shared.inspect("job"))
      expect(after.fence).toBeGreaterThan(held.fence)
      expect(after.session).toBeUndefined()
    }))

  it.effect("observed: once a read a full session lease after the first shows the session unchanged", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      yield* openSession(shared, "s1")
      yield* heldUnder(shared, "job", "s1")
      const startedAt = yield* Clock.currentTimeMillis
      const waiter = yield* forkChild(acquireIn(shared, "job", { takeover: "observed" }))
      yield* advance(60_000)
      const takenAt = yield* Fiber.join(waiter)
      expect(takenAt - startedAt).toBeGreaterThanOrEqual(sessionLeaseMs)
      expect(takenAt - startedAt).toBeLessThanOrEqual(sessionLeaseMs + 600)
    }))

  it.effect("at once when the session has ended (its record released), as after a clean shutdown", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const session = yield* openSession(shared, "s1")
      yield* heldUnder(shared, "job", "s1")
      yield* shared.release({ name: session.name, owner: "s1", fence: session.fence })
      const startedAt = yield* Clock.currentTimeMillis
      const waiter = yield* forkChild(acquireIn(shared, "job"))
      yield* advance(1_000)
      expect((yield* Fiber.join(waiter)) - startedAt).toBeLessThanOrEqual(600)
    }))

  it.effect("not while the session's record can not be read: a store that fails judges nothing", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      yield* openSession(shared, "s1")
      yield* heldUnder(shared, "job", "s1")
      const process = yield* probe(shared)
      process.failing("inspect", true)
      const waiter = yield* forkChild(
        Effect.exit(
          Lock.withLock("job", Effect.void, options).pipe(
            Effect.provideService(LockStore.LockStore, process.service)
          )
        )
      )
      yield* advance(65_000)
      expect(Exit.isFailure(yield* Fiber.join(waiter))).toBe(true)
      expect(Option.getOrThrow(yield* shared.inspect("job")).owner).toBe("job-holder")
    }))

  it.effect("a lock may not take the name of a session's record", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.flip(
        Lock.withLock(LeaseSession.recordName("s1"), Effect.void).pipe(
          Effect.provideService(LockStore.LockStore, sharedMemory())
        )
      )
      expect(refused._tag).toBe("LockConfigError")
      expect(refused.message).toContain("lease sessions")
    }))

  it.effect("one read judges the session for every waiter of the process", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      yield* openSession(shared, "s1")
      const names = Array.from({ length: 10 }, (_, i) => `job-${i}`)
      for (const name of names) yield* heldUnder(shared, name, "s1")
      const { counting, reads } = recordingReads(yield* probe(shared))
      const waiters = yield* Effect.forEach(names, (name) =>
        forkChild(
          Lock.withLock(name, Effect.void, options).pipe(Effect.provideService(LockStore.LockStore, counting))
        ))
      yield* advance(45_000)
      yield* Effect.forEach(waiters, Fiber.join)
      const sessionReads = reads.filter((name) => name === LeaseSession.recordName("s1")).length
      // One to see it alive and one to find it dead, not one per waiter and poll.
      expect(sessionReads).toBeLessThanOrEqual(3)
      expect(sessionReads).toBeGreaterThan(0)
    }))

  it.effect("the waiters on one live session's locks share their reads of them, and all take over once it dies", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const session = yield* openSession(shared, "s1")
      const names = Array.from({ length: 12 }, (_, i) => `shard-${i}`)
      for (const name of names) yield* heldUnder(shared, name, "s1")
      const beat = yield* forkChild(heartbeat(shared, "s1", session.fence))
      const { counting, reads } = recordingReads(yield* probe(shared))
      const waiters = yield* Effect.forEach(names, (name) =>
        forkChild(
          Lock.withLock(name, Clock.currentTimeMillis, { ...options, wait: "2 minutes" }).pipe(
            Effect.provideService(LockStore.LockStore, counting)
          )
        ))
      // While the session lives, its locks are read a few per poll interval between the twelve waiters.
      yield* advance(5_000)
      const before = reads.filter((name) => name.startsWith("shard-")).length
      yield* advance(20_000)
      const lockReads = reads.filter((name) => name.startsWith("shard-")).length - before
      const polls = 20_000 / 500
      expect(lockReads).toBeLessThanOrEqual(SessionWaiting.readsPerPoll * polls * 1.5)
      // The session's process dies: every waiter takes its lock over within a poll of the session's judgement.
      yield* Fiber.interrupt(beat)
      const last = Option.getOrThrow(yield* shared.inspect(LeaseSession.recordName("s1")))
      // The last renew's lease and the skew bound, and a poll.
      yield* advance(45_000)
      const takenAt = yield* Effect.forEach(waiters, Fiber.join)
      const deadAt = last.leaseUntil + maxClockSkewMs
      for (const at of takenAt) {
        expect(at).toBeGreaterThan(deadAt)
        expect(at).toBeLessThanOrEqual(deadAt + 600)
      }
    }))
})
