/**
 * A holder on the DynamoDB store whose server goes away mid-hold (dynalite behind the test proxy, paused).
 *
 * The lock's time is the TestClock: the heartbeat, the local deadline, the at-risk warning and the bounded release
 * all run on it, and each renew is cut off at the deadline on it. The store's own request timeouts run on the real
 * clock by design; they are set long here, so that only the lock's bounds decide.
 *
 * Between two steps of the TestClock the test waits (in real time) for the store calls in flight to settle: each has
 * either answered or is held by the paused server. A call is one request (`maxRetries: 0`), so what the server does
 * with it is what the lock sees.
 */
import { describe, expect, it } from "@effect/vitest"
import type * as Lease from "@leasehold/lock/Lease"
import * as Lock from "@leasehold/lock/Lock"
import { LockLost } from "@leasehold/lock/LockError"
import * as LockStore from "@leasehold/lock/LockStore"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import { Clock, Deferred, Effect, Exit, Fiber, Layer, Option, Ref, Stream } from "effect"
import type { Scope } from "effect"
import {
  catchDefect,
  findErrorOption,
  forkChild,
  forkDetach,
  hasInterruptsOnly,
  isDone,
  TestClock,
  withRandomFixed
} from "./effectLine.js"
import { inRealTime, makeStore, makeTable, timeoutOrElse, unique } from "./support.js"

/** Lease 10 s: renew every 2 s; the local deadline is 1 s before the lease ends; "at risk" 2.5 s before that. */
const options = {
  lease: "10 seconds",
  heartbeat: "2 seconds",
  safetyMargin: "1 second",
  warnAt: "2.5 seconds"
} satisfies Lock.LockOptions
const leaseMs = 10_000
const heartbeatMs = 2_000
/** Acquired at t0, never renewed: the local deadline. */
const deadlineMs = leaseMs - 1_000
const warnAtMs = 2_500

interface StoreCall {
  readonly operation: "tryAcquire" | "renew" | "release"
  /** TestClock ms since t0 when the call began. */
  readonly sentAt: number
  readonly outcome: "Acquired" | "Conflict" | "Renewed" | "Lost" | "Released" | "NotHeld" | "failed" | "interrupted"
}

/**
 * Sets the TestClock to the wall clock, so that the store's leases are realistic; returns t0.
 *
 * Rounded down to a multiple of 4 ms: the TestClock's nanosecond time is `instant * 10^6` in floating point, which
 * at today's epoch is exact only for instants divisible by 4, and the lock reads its deadlines in nanoseconds (floored
 * to ms, so an inexact instant reads 1 ms early). The test moves the clock in multiples of 4 ms wherever the lock
 * reads it.
 */
const clockNow = Effect.gen(function*() {
  const now = Date.now()
  const t0 = now - (now % 4)
  yield* TestClock.setTime(t0)
  return t0
})

/**
 * A DynamoDB store, wrapped to record every acquire, renew and release and to count the calls in flight, so that the
 * test knows when the lock has heard back from the server.
 */
const makeInstrumentedStore = (t0: number) =>
  Effect.gen(function*() {
    const { tableName } = yield* makeTable()
    const store = yield* makeStore(tableName, { maxRetries: 0, requestTimeout: "1 minute" })
    const calls = yield* Ref.make<ReadonlyArray<StoreCall>>([])
    const inFlight = yield* Ref.make(0)
    const track = <A extends { readonly _tag: StoreCall["outcome"] }, E>(
      operation: StoreCall["operation"],
      call: Effect.Effect<A, E>
    ) =>
      Effect.gen(function*() {
        const sentAt = (yield* Clock.currentTimeMillis) - t0
        yield* Ref.update(inFlight, (n) => n + 1)
        return yield* call.pipe(
          Effect.onExit((exit) => {
            const outcome: StoreCall["outcome"] = Exit.isSuccess(exit)
              ? exit.value._tag
              : hasInterruptsOnly(exit.cause)
              ? "interrupted"
              : "failed"
            return Effect.andThen(
              Ref.update(inFlight, (n) => n - 1),
              Ref.update(calls, (all) => [...all, { operation, sentAt, outcome }])
            )
          })
        )
      })
    const instrumented: LockStore.LockStore = {
      ...store,
      tryAcquire: (request) => track("tryAcquire", store.tryAcquire(request)),
      renew: (request) => track("renew", store.renew(request)),
      release: (request) => track("release", store.release(request))
    }
    return { store: instrumented, tableName, calls: Ref.get(calls), inFlight: Ref.get(inFlight) }
  })

type Instrumented = ReturnType<typeof makeInstrumentedStore> extends Effect.Effect<infer A, any, any> ? A : never

/** Waits (real time) until every store call in flight has answered or is held by the paused server. */
const settle = (instrumented: Instrumented) =>
  Effect.gen(function*() {
    const server = yield* DynamoServer.DynamoServer
    yield* Effect.sleep("1 millis")
    let n = 0
    while ((yield* instrumented.inFlight) > (yield* server.pending)) {
      if (n++ % 500 === 0) {
        yield* Effect.sleep("1 millis")
      }
    }
  }).pipe(
    timeoutOrElse({ duration: "5 seconds", orElse: () => Effect.fail(new Error("store calls did not settle in 5 s")) }),
    Effect.orDie,
    inRealTime
  )

/** Moves the TestClock by `ms` in steps, letting the store calls each step starts settle. */
const advance = (instrumented: Instrumented, ms: number, step = ms) =>
  Effect.gen(function*() {
    for (let moved = 0; moved < ms; moved += step) {
      yield* TestClock.adjust(Math.min(step, ms - moved))
      yield* settle(instrumented)
    }
  })

/** Moves the TestClock in steps until `done`, at most `limitMs`; returns how far it moved. */
const advanceUntil = (instrumented: Instrumented, done: Effect.Effect<boolean>, step: number, limitMs: number) =>
  Effect.gen(function*() {
    let moved = 0
    while (!(yield* done)) {
      if (moved >= limitMs) return yield* Effect.die(`still not done after ${limitMs} ms of TestClock`)
      yield* advance(instrumented, step)
      moved += step
    }
    return moved
  })

/**
 * Runs `Lock.withLock(name, section)` in a fiber. The section re-enters the lock to hand out its lease (no store
 * call), then runs until `finish` or an interruption, which it records with the TestClock time.
 *
 * When the test ends, however it ends, the server answers again and the clock moves until the holder is done, so
 * that its release (which nothing can interrupt) finishes before the store and the server go away.
 */
const startHolder = (instrumented: Instrumented, t0: number) =>
  Effect.gen(function*() {
    const server = yield* DynamoServer.DynamoServer
    const name = unique("outage")
    const leaseOf = yield* Deferred.make<Lease.Lease>()
    const finish = yield* Deferred.make<string>()
    const interruptedAt = yield* Deferred.make<number>()
    const section = Effect.gen(function*() {
      yield* Deferred.succeed(leaseOf, yield* Effect.scoped(Lock.acquire(name, options)))
      return yield* Deferred.await(finish)
    }).pipe(
      Effect.onInterrupt(() =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => Deferred.succeed(interruptedAt, now - t0))
      )
    )
    const fiber = yield* Lock.withLock(name, section, options).pipe(
      Effect.provideService(LockStore.LockStore, instrumented.store),
      // The first renew at the latest point it may go, one heartbeat in: the test moves the clock by heartbeats.
      withRandomFixed(0),
      forkDetach
    )
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        yield* server.resume
        yield* forkDetach(Fiber.interrupt(fiber))
        yield* advanceUntil(instrumented, isDone(fiber), 100, 60_000)
      }).pipe(catchDefect((defect) => Effect.logError("the lock holder did not finish", defect)))
    )
    const lease = yield* Deferred.await(leaseOf)
    // Every status from now on, up to a final one; subscribed before the test moves the clock.
    const subscribed = yield* Deferred.make<void>()
    const statuses = yield* lease.changes.pipe(
      Stream.tap(() => Deferred.succeed(subscribed, undefined)),
      Stream.takeUntil((status) => status._tag === "Lost" || status._tag === "Released"),
      Stream.runCollect,
      Effect.map((all): ReadonlyArray<Lease.LeaseStatus> => Array.from(all)),
      forkChild
    )
    yield* Deferred.await(subscribed)
    return { name, fiber, lease, finish, interruptedAt, statuses }
  })

/** Waits (real time, no clock involved) until the lease reports `tag`. */
const awaitStatus = (lease: Lease.Lease, tag: Lease.LeaseStatus["_tag"]) =>
  lease.changes.pipe(
    Stream.filter((status) => status._tag === tag),
    Stream.runHead,
    Effect.map(Option.getOrThrow),
    Effect.orDie
  )

const failureOf = <A, E>(exit: Exit.Exit<A, E>) =>
  Exit.isFailure(exit) ? Option.getOrUndefined(findErrorOption(exit.cause)) : undefined

const renewsOf = (calls: ReadonlyArray<StoreCall>) => calls.filter((call) => call.operation === "renew")
const releasesOf = (calls: ReadonlyArray<StoreCall>) => calls.filter((call) => call.operation === "release")
const tagsOf = (statuses: ReadonlyArray<Lease.LeaseStatus>) => statuses.map((status) => status._tag)

/** A fresh dynalite for the test, built in the test's scope so that it outlives everything the test starts. */
const withServer = <A, E>(self: Effect.Effect<A, E, DynamoServer.DynamoServer | Scope.Scope>) =>
  Effect.flatMap(Layer.build(DynamoServer.layerDynalite), (context) => Effect.provide(self, context))

/**
 * Holds a lock while the server stops answering (requests held), up to the local deadline: checks "Held", "AtRisk"
 * and "Lost" at their exact times, and that the section is interrupted at the deadline. Leaves the release held by
 * the silent server.
 */
const holdThroughSilence = Effect.gen(function*() {
  const server = yield* DynamoServer.DynamoServer
  const t0 = yield* clockNow
  const instrumented = yield* makeInstrumentedStore(t0)
  const holder = yield* startHolder(instrumented, t0)

  yield* server.pause
  // The first heartbeat's renew reaches the server, which holds it.
  yield* advance(instrumented, heartbeatMs)
  expect(yield* server.pending).toBe(1)
  yield* advance(instrumented, deadlineMs - warnAtMs - heartbeatMs - 1)
  expect(yield* holder.lease.status).toEqual({ _tag: "Held" })
  yield* advance(instrumented, 1)
  expect(yield* holder.lease.status).toEqual({ _tag: "AtRisk", remainingMs: warnAtMs })

  // One millisecond before the deadline the section still runs; at the deadline it is interrupted.
  yield* advance(instrumented, warnAtMs - 1)
  expect(yield* Deferred.isDone(holder.interruptedAt)).toBe(false)
  expect(yield* isDone(holder.fiber)).toBe(false)
  yield* advance(instrumented, 1)
  const lost = yield* awaitStatus(holder.lease, "Lost")
  expect(lost._tag === "Lost" && lost.error.reason).toBe("expired")
  expect(yield* Deferred.await(holder.interruptedAt)).toBe(deadlineMs)

  // The renew stayed held until the deadline cut it off; nothing renewed in between.
  expect(renewsOf(yield* instrumented.calls)).toEqual([
    { operation: "renew", sentAt: heartbeatMs, outcome: "interrupted" }
  ])
  // The release went out at once, and the silent server holds it too.
  yield* server.awaitPending(1)
  expect(yield* instrumented.inFlight).toBe(1)
  return { t0, instrumented, holder }
})

describe("a DynamoDB server outage while a lock is held", () => {
  it.effect("the server stops answering: at risk, then lost at the local deadline; the section is interrupted", () =>
    withServer(Effect.gen(function*() {
      const server = yield* DynamoServer.DynamoServer
      const { holder, instrumented, t0 } = yield* holdThroughSilence

      // The caller has its answer at the deadline: the release of a lost lease does not hold it up.
      expect(yield* isDone(holder.fiber)).toBe(true)

      // Then the server goes away altogether: the held release is reset, retried briefly in the background and
      // abandoned.
      yield* server.pauseWith("refuse")
      const settled = Effect.map(instrumented.calls, (calls) => releasesOf(calls).length === 3)
      const releasing = yield* advanceUntil(instrumented, settled, 100, leaseMs)
      expect(releasing).toBeLessThan(leaseMs)
      const releases = releasesOf(yield* instrumented.calls)
      expect(releases.every((call) => call.outcome === "failed")).toBe(true)

      const error = failureOf(yield* Fiber.await(holder.fiber))
      expect(error).toBeInstanceOf(LockLost)
      expect(error).toMatchObject({ _tag: "LockLost", name: holder.name, reason: "expired", fence: holder.lease.fence })
      expect(tagsOf(yield* Fiber.join(holder.statuses))).toEqual(["Held", "AtRisk", "Lost"])

      // The store never heard of any of this: the row names the lost holder until its lease runs out.
      const direct = yield* makeStore(instrumented.tableName, {
        clientConfig: { ...server.clientConfig, endpoint: server.serverEndpoint }
      })
      const record = Option.getOrThrow(yield* direct.inspect(holder.name))
      expect(record.owner).toBe(holder.lease.owner)
      expect(record.leaseUntil).toBe(t0 + leaseMs)
    })).pipe(Effect.scoped))

  // Regression: the release runs in an uninterruptible finalizer; its per-attempt timeout must still abandon a call
  // the server never answers, on the lock's clock.
  it.effect("the server stays silent: the release is abandoned on the lock's clock and withLock fails", () =>
    withServer(Effect.gen(function*() {
      const { holder, instrumented } = yield* holdThroughSilence
      const releasing = yield* advanceUntil(instrumented, isDone(holder.fiber), 100, leaseMs)
      expect(releasing).toBeLessThan(leaseMs)
      expect(failureOf(yield* Fiber.await(holder.fiber))).toMatchObject({ _tag: "LockLost", reason: "expired" })
      expect(releasesOf(yield* instrumented.calls).every((call) => call.outcome === "interrupted")).toBe(true)
    })).pipe(Effect.scoped))

  it.effect("the server comes back before the deadline: the lease is Held again and the section completes", () =>
    withServer(Effect.gen(function*() {
      const server = yield* DynamoServer.DynamoServer
      const t0 = yield* clockNow
      const instrumented = yield* makeInstrumentedStore(t0)
      const holder = yield* startHolder(instrumented, t0)

      yield* server.pause
      yield* advance(instrumented, heartbeatMs)
      yield* advance(instrumented, deadlineMs - warnAtMs - heartbeatMs)
      expect(yield* holder.lease.status).toEqual({ _tag: "AtRisk", remainingMs: warnAtMs })

      // The held renew goes through and answers: its lease counts from when it was sent.
      yield* server.resume
      yield* settle(instrumented)
      yield* awaitStatus(holder.lease, "Held")
      expect(renewsOf(yield* instrumented.calls)[0]).toEqual({
        operation: "renew",
        sentAt: heartbeatMs,
        outcome: "Renewed"
      })

      // Past the first deadline, still held, renewing again on schedule: the slow renew's lease counts from when it
      // was sent, so its next beat (2 heartbeats in) is already due and goes at once; then one per heartbeat.
      yield* advance(instrumented, warnAtMs + 500, 500)
      expect(yield* holder.lease.status).toEqual({ _tag: "Held" })
      expect(yield* Deferred.isDone(holder.interruptedAt)).toBe(false)
      expect(renewsOf(yield* instrumented.calls)).toEqual([
        { operation: "renew", sentAt: heartbeatMs, outcome: "Renewed" },
        { operation: "renew", sentAt: deadlineMs - warnAtMs, outcome: "Renewed" },
        { operation: "renew", sentAt: deadlineMs - warnAtMs + heartbeatMs, outcome: "Renewed" }
      ])

      yield* Deferred.succeed(holder.finish, "done")
      expect(yield* Fiber.join(holder.fiber)).toBe("done")
      expect(tagsOf(yield* Fiber.join(holder.statuses))).toEqual(["Held", "AtRisk", "Held", "Released"])
      expect(releasesOf(yield* instrumented.calls).map((call) => call.outcome)).toEqual(["Released"])
    })).pipe(Effect.scoped))

  it.effect("refused connections: renews fail and are retried until the deadline, then the lease is lost", () =>
    withServer(Effect.gen(function*() {
      const server = yield* DynamoServer.DynamoServer
      const t0 = yield* clockNow
      const instrumented = yield* makeInstrumentedStore(t0)
      const holder = yield* startHolder(instrumented, t0)

      yield* server.pauseWith("refuse")
      yield* advance(instrumented, heartbeatMs)
      expect(renewsOf(yield* instrumented.calls)).toEqual([{
        operation: "renew",
        sentAt: heartbeatMs,
        outcome: "failed"
      }])

      yield* advance(instrumented, deadlineMs - heartbeatMs, 100)
      const lost = yield* awaitStatus(holder.lease, "Lost")
      expect(lost._tag === "Lost" && lost.error.reason).toBe("expired")
      expect(yield* Deferred.await(holder.interruptedAt)).toBe(deadlineMs)

      // Retried with backoff (never more than a heartbeat apart) until the deadline, never after it.
      const renews = renewsOf(yield* instrumented.calls)
      expect(renews.length).toBeGreaterThanOrEqual(3)
      expect(renews.every((call) => call.outcome === "failed")).toBe(true)
      for (let i = 1; i < renews.length; i++) {
        const gap = renews[i]!.sentAt - renews[i - 1]!.sentAt
        expect(gap).toBeGreaterThan(0)
        expect(gap).toBeLessThanOrEqual(heartbeatMs)
      }
      expect(renews.at(-1)!.sentAt).toBeLessThan(deadlineMs)
      expect(deadlineMs - renews.at(-1)!.sentAt).toBeLessThanOrEqual(heartbeatMs)

      // The server is back for the release (in the background), which frees the lock for the next holder before its
      // lease runs out.
      yield* server.resume
      yield* advanceUntil(instrumented, isDone(holder.fiber), 100, leaseMs)
      expect(failureOf(yield* Fiber.await(holder.fiber))).toMatchObject({ _tag: "LockLost", reason: "expired" })
      const released = Effect.map(instrumented.calls, (calls) => releasesOf(calls).at(-1)?.outcome === "Released")
      yield* advanceUntil(instrumented, released, 100, leaseMs)
      expect(tagsOf(yield* Fiber.join(holder.statuses))).toEqual(["Held", "AtRisk", "Lost"])
      const record = Option.getOrThrow(yield* instrumented.store.inspect(holder.name))
      expect(record.owner).toBeUndefined()
    })).pipe(Effect.scoped))
})
