/**
 * The acquire loop of a semaphore's permits: one conditional write per attempt, which also removes the holders whose
 * leases are over when that makes room.
 *
 * On conflict the record says how full the semaphore is. If the permits would fit once the holders that are over are
 * removed, the next attempt goes at once and removes them; otherwise the fiber sleeps until the next holder's lease
 * could be over or a jittered poll interval, whichever is sooner, until `wait` runs out. Creating the record, removing
 * holders and a record that changed under the attempt are not waiting: they get a few immediate attempts even with
 * no `wait`. A holder under a lease session is over once its session is judged dead (one read of the session's record,
 * shared by the process's waiters: `sessionJudge.ts`). Each fiber asks on its own: there is no local queue. A
 * semaphore's waiters are served in no particular order; a read/write lock's (`fair`) reserve the record as a lock's
 * waiters do, so that the longest waiter goes next (`@leasehold/core/acquire/PermitReservation`). A write that may have applied is given back, by owner, when the loop ends without the permits;
 * what an owner id stands for, and when the loop takes a fresh one, is in `acquireOwner.ts`. The loop is
 * `attemptLoop.ts`'s, with a semaphore's request, judge and conflict handling; what each answer leads to is decided
 * in `@leasehold/core/acquire/PermitAttempt` (and `AcquireStep`).
 *
 * @internal
 */
import * as AcquireBoundCore from "@leasehold/core/acquire/AcquireBound"
import type * as AcquireStep from "@leasehold/core/acquire/AcquireStep"
import * as PermitAttempt from "@leasehold/core/acquire/PermitAttempt"
import * as PermitReservation from "@leasehold/core/acquire/PermitReservation"
import * as ReservationCore from "@leasehold/core/acquire/Reservation"
import type { LockRecord } from "@leasehold/core/record/LockRecord"
import type { SemaphoreRecord } from "@leasehold/core/record/SemaphoreRecord"
import type * as SessionVerdict from "@leasehold/core/session/SessionVerdict"
import type { ExpiredPermit } from "@leasehold/core/store/SemaphoreProtocol"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { type LockNotAcquired, type LockStoreError, SemaphoreLimitMismatch } from "../../LockError.js"
import type * as LockStore from "../../LockStore.js"
import * as AcquireBound from "../acquire/acquireBound.js"
import * as AttemptLoop from "../acquire/attemptLoop.js"
import * as Reservation from "../acquire/reservation.js"
import * as SessionJudge from "../acquire/sessionJudge.js"
import { giveBack } from "../lease/giveBack.js"
import * as LeaseStore from "../lease/leaseStore.js"
import { monotonicMillis } from "../process/clock.js"
import * as MemoryStore from "../store/memoryStore.js"
import type * as SemaphoreOptions from "./semaphoreOptions.js"

/** @internal */
export interface Args {
  readonly store: LockStore.LockStore
  readonly name: string
  readonly options: SemaphoreOptions.Resolved
  /** Monotonic ms when the caller began to acquire: `wait` counts from here. */
  readonly startedAt: number
  /** The id of the lease session to hold the permits under, if any. */
  readonly session?: string | undefined
  /**
   * A read/write lock's acquire: waiters reserve the record, and a write that creates the record marks it
   * (`SemaphoreRecord.readWrite`).
   */
  readonly fair?: boolean | undefined
}

/** @internal */
export interface Acquired extends AttemptLoop.Acquired {
  /** The caller's entry, as a lock's record. */
  readonly record: LockRecord
}

/** What one acquire has learned so far. */
interface Attempts {
  /** The last attempt found no record. */
  create: boolean
  /** The holders to remove in the next attempt. */
  expired: ReadonlyArray<ExpiredPermit>
  /** The record the last conflict showed, for the answer when the wait runs out. */
  last: SemaphoreRecord | undefined
  /** Observed takeover: each other holder's version as first seen. */
  sightings: PermitAttempt.Sightings
  /** The record last seen carries our reservation: the next write clears it. */
  reserved: boolean
  /** Epoch ms on our wall clock when the caller began to ask, set at the first conflict: a reservation's priority. */
  waitingSince: number | undefined
}

/** The options the core's decisions read, in one record. */
const attemptOptions = (options: SemaphoreOptions.Resolved): PermitAttempt.AttemptOptions => ({
  takeover: options.lease.takeover,
  maxClockSkewMs: options.lease.maxClockSkewMs,
  leaseMs: options.lease.leaseMs,
  safetyMarginMs: options.lease.safetyMarginMs,
  permits: options.permits,
  limit: options.limit
})

const giveUp = (args: Args, record: SemaphoreRecord | undefined, now: number, late?: AcquireBound.Late) =>
  AcquireBound.giveUp({
    name: args.name,
    startedAt: args.startedAt,
    permits: PermitAttempt.shortage(attemptOptions(args.options), record),
    ...late
  }, now)

/** Gives back by owner whatever the writes of `owner` may have left held. */
const cleanup = ({ name, options, store }: Args, owner: string) =>
  giveBack(
    LeaseStore.ofPermits(store, options.permits),
    { name, owner, fence: undefined },
    (reason) =>
      `could not clean up after an unfinished acquire of semaphore "${name}" (${reason}); if a write of it was ` +
      `applied, its lease will expire`
  )

/**
 * Tries until acquired or `wait` (from `startedAt`, monotonic ms) passes, plus `waitSlackMs` for a call in flight.
 * Interruptible everywhere; if it ends without the permits after a write that may have applied, it gives them back
 * by owner, in the background unless the store answers at once.
 *
 * @internal
 */
export const run = (
  args: Args
): Effect.Effect<Acquired, LockNotAcquired | SemaphoreLimitMismatch | LockStoreError> => {
  const { name, options, store } = args
  const lease = options.lease
  const waitUntil = AcquireBoundCore.waitUntil(args.startedAt, lease.waitMs)
  const decisions = attemptOptions(options)
  const takeover = PermitAttempt.takeover(decisions)
  const attempts: Attempts = {
    create: false,
    expired: [],
    last: undefined,
    sightings: new Map(),
    reserved: false,
    waitingSince: undefined
  }
  const jitteredPoll = AcquireBound.jitteredPoll(lease.pollIntervalMs)
  const reservation: ReservationCore.ReservationOptions = {
    takeover: lease.takeover,
    pollIntervalMs: lease.pollIntervalMs,
    leaseMs: lease.leaseMs
  }

  /** After a conflict (or a limit mismatch) at `now`, `eager` attempts since the last sleep: again, sleep, or end. */
  const conflict = (
    answer: Extract<PermitAttempt.Answer, { readonly _tag: "Conflict" | "LimitMismatch" }>,
    owner: string,
    now: number,
    eager: number
  ): Effect.Effect<AcquireStep.Again | AcquireStep.Sleep, LockNotAcquired | SemaphoreLimitMismatch> =>
    Effect.gen(function*() {
      if (answer._tag === "LimitMismatch") {
        return yield* new SemaphoreLimitMismatch({ name, limit: options.limit, storedLimit: answer.storedLimit })
      }
      const record = answer.current
      attempts.create = record === undefined
      // No record: the next attempt creates it.
      let plan: PermitAttempt.Plan = { _tag: "Now", expired: [] }
      if (record !== undefined) {
        attempts.last = record
        if (decisions.takeover === "observed") {
          attempts.sightings = PermitAttempt.observe(attempts.sightings, record, now)
        }
        // A holder under a lease session is judged by its session, not by its lease fields (`LeaseSession`).
        const sessions = new Map<string, SessionVerdict.Verdict>()
        for (const session of PermitAttempt.sessionsToJudge(record, owner)) {
          sessions.set(session, yield* SessionJudge.judge(store, session, lease))
        }
        plan = PermitAttempt.plan({
          options: decisions,
          owner,
          sightings: attempts.sightings,
          record,
          wallNow: yield* Clock.currentTimeMillis,
          now: sessions.size === 0 ? now : yield* monotonicMillis,
          pollMs: yield* jitteredPoll,
          sessions
        })
      }
      attempts.expired = plan._tag === "Now" ? plan.expired : []
      attempts.reserved = record?.reservation?.reservedBy === owner
      const next = PermitAttempt.next(plan, eager, now, waitUntil)
      if (next._tag === "GiveUp") return yield* giveUp(args, attempts.last, now)
      if (args.fair !== true || record === undefined || next._tag === "Again") return next
      return yield* fairSleep(record, owner, now, next.sleepMs)
    })

  /** A read/write lock's waiter after a conflict on `record`: reserve if it is next, and sleep as reservations say. */
  const fairSleep = (record: SemaphoreRecord, owner: string, now: number, usualMs: number | undefined) =>
    Effect.gen(function*() {
      const wallNow = yield* Clock.currentTimeMillis
      const waitingSince = attempts.waitingSince ??= ReservationCore.waitingSince(wallNow, now, args.startedAt)
      let seen = record
      if (PermitReservation.shouldReserve(reservation, owner, record, waitingSince, wallNow)) {
        const times = PermitReservation.reservationTimes(reservation, record, now, wallNow, waitUntil)
        const request = { name, owner, limit: options.limit, permits: options.permits, waitingSince, ...times }
        // A failed reservation never fails the acquire: the conflict's record stands.
        seen = (yield* Reservation.reservePermits(store, request, record)) ?? record
        attempts.last = seen
        attempts.reserved = seen.reservation?.reservedBy === owner
      }
      const pollMs = yield* jitteredPoll
      const sleepMs = PermitReservation.sleepMs({
        options: reservation,
        owner,
        record: seen,
        usualMs: usualMs ?? pollMs,
        pollMs,
        wallNow,
        waitingSince
      })
      return { _tag: "Sleep", sleepMs } as const
    })

  return AttemptLoop.run({
    ownerAttribute: "semaphore.owner",
    tooLateWarning: `an acquire of semaphore "${name}" was answered too late to use; retrying`,
    waitUntil,
    pollIntervalMs: lease.pollIntervalMs,
    answersAtOnce: MemoryStore.answersAtOnce(store),
    send: (owner) =>
      store.tryAcquirePermits({
        name,
        owner,
        holder: lease.holder,
        limit: options.limit,
        permits: options.permits,
        leaseMs: lease.leaseMs,
        data: lease.data,
        takeover,
        session: args.session,
        expired: attempts.create ? [] : attempts.expired,
        create: attempts.create,
        ...(attempts.reserved && !attempts.create ? { reserved: true } : {}),
        ...(args.fair === true ? { readWrite: true } : {})
      }),
    judge: (result, owner, sentAt, now) =>
      PermitAttempt.judge({ options: decisions, name, owner, result, sentAt, now }),
    conflict,
    giveBack: (owner) => cleanup(args, owner),
    giveUp: (now, late) => giveUp(args, attempts.last, now, late)
  })
}
