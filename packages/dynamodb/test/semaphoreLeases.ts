/**
 * `Semaphore` leases on a real DynamoDB server: a live holder's heartbeat keeps its entry, a holder that can not renew
 * loses its permits (and its section) at its deadline, and a dead holder's permits are taken over once its lease and
 * the skew bound are over, not before. The TestClock drives the leases, as in `semaphoreModule.ts`; the test waits in
 * real time, within a bound, for what the server must answer in between.
 */
import { expect } from "@effect/vitest"
import { LockLost } from "@leasehold/lock/LockError"
import type { Permits } from "@leasehold/lock/Permits"
import * as Semaphore from "@leasehold/lock/Semaphore"
import * as FaultyStore from "@leasehold/testing/FaultyStore"
import { Clock, Deferred, Effect, Exit, Fiber, Option, Schedule } from "effect"
import type { Engine } from "./behaviour.js"
import { findErrorOption, forkChild, hasInterruptsOnly, TestClock, withRandomFixed } from "./effectLine.js"
import {
  as,
  clockNow,
  conflictReads,
  inspectHolders,
  type It,
  lease,
  leaseMs,
  maxClockSkewMs
} from "./semaphoreModule.js"
import { counted, inRealTime, makeStore, makeTable, timeoutOrElse, unique } from "./support.js"

const heartbeatMs = 2_000
/** The holder's local deadline: a lease after its acquire or last renew, less the safety margin. */
const deadlineMs = 9_000

/** In real time: a step the test waits for must come, or the test fails rather than hang. */
const within = <A, E>(what: string, self: Effect.Effect<A, E>) =>
  self.pipe(
    timeoutOrElse({ duration: "5 seconds", orElse: () => Effect.fail(new Error(`not within 5 s: ${what}`)) }),
    Effect.orDie,
    inRealTime
  )

const failureOf = <A, E>(exit: Exit.Exit<A, E>) =>
  Exit.isFailure(exit) ? Option.getOrUndefined(findErrorOption(exit.cause)) : undefined

export const semaphoreLeaseBehaviour = (it: It, engine: Engine) => {
  keeping(it)
  takeover(it, engine)
}

/** Keeping permits through the heartbeat, and losing them when the holder's process can no longer reach the store. */
const keeping = (it: It) => {
  it.effect("a live holder's heartbeat renews its entry: past the lease of its acquire, nobody takes it over", () =>
    Effect.gen(function*() {
      const t0 = yield* clockNow
      const { tableName } = yield* makeTable()
      const [store, other] = yield* Effect.all([makeStore(tableName), makeStore(tableName)])
      const name = unique("kept")
      const options = { ...lease, limit: 1 }
      const entered = yield* Deferred.make<void>()
      const finish = yield* Deferred.make<string>()
      const section = Effect.andThen(Deferred.succeed(entered, undefined), Deferred.await(finish))
      const fiber = yield* forkChild(
        Semaphore.withPermits(name, section, options).pipe(
          as(store),
          // The first renew a whole heartbeat after the acquire, the latest it may go: each step below sends one.
          withRandomFixed(0)
        )
      )
      yield* within("the section to begin", Deferred.await(entered))
      const leaseUntil = Effect.map(
        other.inspectSemaphore(name),
        (record) => Option.getOrThrow(record).holders[0]?.leaseUntil
      )
      // Renews until past the lease of the acquire and the skew bound, with a heartbeat to spare.
      const beats = (leaseMs + maxClockSkewMs) / heartbeatMs + 1
      for (let beat = 1; beat <= beats; beat++) {
        yield* TestClock.adjust(heartbeatMs)
        const renewed = t0 + beat * heartbeatMs + leaseMs
        yield* within(
          `the renew that extends the lease to ${renewed - t0} ms`,
          Effect.repeat(leaseUntil, { until: (until) => until === renewed, schedule: Schedule.spaced("5 millis") })
        )
      }
      // Only the renews keep the entry from being taken over now.
      const refused = yield* Effect.flip(Effect.scoped(Semaphore.acquire(name, options))).pipe(as(other))
      expect(refused).toMatchObject({ _tag: "LockNotAcquired", permits: { wanted: 1, used: 1, holders: 1 } })
      yield* Deferred.succeed(finish, "done")
      expect(yield* within("the end of withPermits", Fiber.join(fiber))).toBe("done")
      expect(yield* inspectHolders(other, name)).toEqual(Option.some({ limit: 1, used: 0, holders: [] }))
    }).pipe(Effect.scoped))

  it.effect("a holder that can not renew loses its permits at its deadline, before they can be taken over", () =>
    Effect.gen(function*() {
      const t0 = yield* clockNow
      const { tableName } = yield* makeTable()
      const [store, other] = yield* Effect.all([makeStore(tableName), makeStore(tableName)])
      // Once it holds, every renew and release of the holder's process fails, as a refused connection would.
      const cutOff = FaultyStore.make(store, {
        process: "holder",
        plan: (call) =>
          call.operation === "renewPermits" || call.operation === "releasePermits" ? { kind: "retryable" } : undefined
      })
      const name = unique("lost")
      const options = { ...lease, limit: 3 }

      const entered = yield* Deferred.make<void>()
      const interruptedAt = yield* Deferred.make<number>()
      const section = Effect.andThen(Deferred.succeed(entered, undefined), Effect.never).pipe(
        Effect.onInterrupt(() =>
          Effect.flatMap(Clock.currentTimeMillis, (now) => Deferred.succeed(interruptedAt, now - t0))
        )
      )
      const sectionFiber = yield* forkChild(
        Semaphore.withPermits(name, section, { ...options, permits: 2 }).pipe(as(cutOff))
      )
      yield* within("the section to begin", Deferred.await(entered))
      // The same process holds one more through the scoped form, in a fiber of its own.
      const handle = yield* Deferred.make<Permits>()
      const holderFiber = yield* forkChild(
        Effect.scoped(
          Effect.flatMap(
            Semaphore.acquire(name, options),
            (permits) => Effect.andThen(Deferred.succeed(handle, permits), Effect.never)
          )
        ).pipe(as(cutOff))
      )
      const permits = yield* within("the scoped form's permits", Deferred.await(handle))
      const stored = Option.getOrThrow(yield* inspectHolders(other, name)).holders
      expect(stored.map((holder) => holder.permits)).toEqual([2, 1])
      expect(stored[1]!.owner).toBe(permits.owner)

      // A millisecond before the deadline both still hold, and nobody else may take their permits.
      yield* TestClock.adjust(deadlineMs - 1)
      expect(yield* Deferred.isDone(interruptedAt)).toBe(false)
      expect(yield* permits.isHeld).toBe(true)
      const early = yield* Effect.flip(Effect.scoped(Semaphore.acquire(name, options))).pipe(as(other))
      expect(early).toMatchObject({ _tag: "LockNotAcquired", permits: { used: 3, holders: 2 } })

      yield* TestClock.adjust(1)
      expect(yield* within("the section's interruption", Deferred.await(interruptedAt))).toBe(deadlineMs)
      const lost = failureOf(yield* within("the end of withPermits", Fiber.await(sectionFiber)))
      expect(lost).toBeInstanceOf(LockLost)
      expect(lost).toMatchObject({ name, owner: stored[0]!.owner, fence: stored[0]!.fence, reason: "expired" })
      // The scoped form: the fiber that acquired is interrupted, and the handle says why.
      const holderExit = yield* within("the interruption of the acquiring fiber", Fiber.await(holderFiber))
      expect(Exit.isFailure(holderExit) && hasInterruptsOnly(holderExit.cause)).toBe(true)
      const status = yield* permits.status
      expect(status).toMatchObject({
        _tag: "Lost",
        error: { _tag: "LockLost", reason: "expired", fence: permits.fence }
      })
      expect(yield* Effect.flip(permits.lost)).toMatchObject({ _tag: "LockLost", name, fence: permits.fence })

      // The store never heard of it: both entries stay until their leases and the skew bound are over.
      expect(Option.getOrThrow(yield* inspectHolders(other, name)).holders).toEqual(stored)
      yield* TestClock.adjust(leaseMs + maxClockSkewMs + 1 - deadlineMs)
      const taker = yield* Semaphore.acquire(name, { ...options, permits: 3, holder: "taker" }).pipe(as(other))
      expect(taker.fence).toBeGreaterThan(permits.fence)
      expect(yield* inspectHolders(other, name)).toEqual(Option.some({
        limit: 3,
        used: 3,
        holders: [{ owner: taker.owner, holder: "taker", permits: 3, fence: taker.fence }]
      }))
    }).pipe(Effect.scoped))
}

/** A dead holder's permits. */
const takeover = (it: It, engine: Engine) => {
  it.effect("a crashed holder's permits are taken over once its leaseUntil + maxClockSkew has passed, not before", () =>
    Effect.gen(function*() {
      const t0 = yield* clockNow
      const { tableName } = yield* makeTable()
      const [crashed, b] = yield* Effect.all([makeStore(tableName), makeStore(tableName)])
      const name = unique("crashed")
      // The acquiring write of a process that died right after it: nothing renews or releases its entry.
      const dead = yield* crashed.tryAcquirePermits({
        name,
        owner: unique("owner"),
        holder: "crashed",
        limit: 2,
        permits: 2,
        leaseMs,
        data: undefined,
        takeover: { _tag: "Absolute", maxClockSkewMs },
        expired: [],
        create: true
      })
      if (dead._tag !== "Acquired") return yield* Effect.die(`the crashed holder got ${dead._tag}`)
      expect(dead.record.leaseUntil).toBe(t0 + leaseMs)
      const options = { ...lease, limit: 2 }

      yield* TestClock.adjust(leaseMs + maxClockSkewMs)
      const early = yield* counted(Effect.flip(Effect.scoped(Semaphore.acquire(name, options))).pipe(as(b)))
      expect(early.result).toMatchObject({
        _tag: "LockNotAcquired",
        permits: { wanted: 1, limit: 2, used: 2, holders: 1 }
      })
      expect(early.requests).toEqual({ UpdateItem: 1, ...conflictReads(engine) })

      yield* TestClock.adjust(1)
      // A write finds the holder over, the next removes it and adds the new one.
      const taking = yield* counted(Semaphore.acquire(name, { ...options, holder: "b" }).pipe(as(b)))
      expect(taking.requests).toEqual({ UpdateItem: 2, ...conflictReads(engine) })
      const taken = taking.result
      expect(taken.fence).toBeGreaterThan(dead.record.fence)
      expect(yield* inspectHolders(b, name)).toEqual(Option.some({
        limit: 2,
        used: 1,
        holders: [{ owner: taken.owner, holder: "b", permits: 1, fence: taken.fence }]
      }))
      // Were the crashed process to come back, its entry would be gone.
      const late = yield* crashed.renewPermits({ name, owner: dead.record.owner!, fence: dead.record.fence, leaseMs })
      expect(late._tag).toBe("Lost")
    }).pipe(Effect.scoped))
}
