/**
 * The acquire loop of a semaphore's permits: one conditional write per attempt, which also removes the holders whose
 * leases are over when that makes room.
 *
 * On conflict the record says how full the semaphore is. If the permits would fit once the holders that are over are
 * removed, the next attempt goes at once and removes them; otherwise the fiber sleeps until the next holder's lease
 * could be over or a jittered poll interval, whichever is sooner, until `wait` runs out. Creating the record, removing
 * holders and a record that changed under the attempt are not waiting: they get a few immediate attempts even with
 * no `wait`. Each fiber asks on its own: there is no local queue and no reservation, so waiters are served in no
 * particular order. A write that may have applied is given back, by owner, when the loop ends without the permits;
 * what an owner id stands for, and when the loop takes a fresh one, is in `acquireOwner.ts`. What each
 * answer leads to is decided in `@leasehold/core/acquire/PermitAttempt`.
 *
 * @internal
 */
import * as AcquireBoundCore from "@leasehold/core/acquire/AcquireBound"
import * as PermitAttempt from "@leasehold/core/acquire/PermitAttempt"
import type { LockRecord } from "@leasehold/core/record/LockRecord"
import type { SemaphoreRecord } from "@leasehold/core/record/SemaphoreRecord"
import type { ExpiredPermit } from "@leasehold/core/store/SemaphoreProtocol"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { type LockNotAcquired, type LockStoreError, SemaphoreLimitMismatch } from "../../LockError.js"
import type * as LockStore from "../../LockStore.js"
import * as AcquireBound from "../acquire/acquireBound.js"
import * as AcquireOwner from "../acquire/acquireOwner.js"
import { giveBack } from "../lease/giveBack.js"
import * as LeaseStore from "../lease/leaseStore.js"
import { outcome } from "../outcome.js"
import { monotonicMillis } from "../process/clock.js"
import * as Metrics from "../process/metrics.js"
import * as MemoryStore from "../store/memoryStore.js"
import type * as SemaphoreOptions from "./semaphoreOptions.js"

/** @internal */
export interface Args {
  readonly store: LockStore.LockStore
  readonly name: string
  readonly options: SemaphoreOptions.Resolved
  /** Monotonic ms when the caller began to acquire: `wait` counts from here. */
  readonly startedAt: number
}

/** @internal */
export interface Acquired {
  /** The caller's entry, as a lock's record. */
  readonly record: LockRecord
  /** Monotonic ms just before the write that set the current lease was sent (or an equally safe estimate). */
  readonly sentAt: number
}

/** What one acquire has learned so far. */
interface Attempts {
  /** The owner id the attempts write with, and which of its writes may have applied without our knowing. */
  readonly owner: AcquireOwner.AcquireOwner
  /** The last attempt found no record. */
  create: boolean
  /** The holders to remove in the next attempt. */
  expired: ReadonlyArray<ExpiredPermit>
  /** Attempts since the last sleep. */
  eager: number
  /** The record the last conflict showed, for the answer when the wait runs out. */
  last: SemaphoreRecord | undefined
  /** Observed takeover: each other holder's version as first seen. */
  sightings: PermitAttempt.Sightings
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

const jitteredPoll = (args: Args) => AcquireBound.jitteredPoll(args.options.lease.pollIntervalMs)

const giveUp = (
  args: Args,
  record: SemaphoreRecord | undefined,
  now: number,
  late?: { readonly answeredAfterMs?: number; readonly unansweredAfterMs?: number }
) =>
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

/** Sleeps `ms`, no later than `waitUntil`; the next attempt is the first of a new eager run. */
const sleepFor = (attempts: Attempts, ms: number, now: number, waitUntil: number) => {
  attempts.eager = 0
  return Effect.sleep(Duration.millis(AcquireBoundCore.conflictSleepMs(ms, now, waitUntil)))
}

/** After a conflict that showed `record` at `now`: go again at once, sleep, or give up. */
const afterConflict = (
  args: Args,
  attempts: Attempts,
  record: SemaphoreRecord | undefined,
  now: number,
  waitUntil: number
): Effect.Effect<void, LockNotAcquired> =>
  Effect.gen(function*() {
    yield* Metrics.increment(Metrics.conflicts)
    attempts.create = record === undefined
    // No record: the next attempt creates it.
    let plan: PermitAttempt.Plan = { _tag: "Now", expired: [] }
    if (record !== undefined) {
      const options = attemptOptions(args.options)
      attempts.last = record
      if (options.takeover === "observed") attempts.sightings = PermitAttempt.observe(attempts.sightings, record, now)
      plan = PermitAttempt.plan({
        options,
        owner: attempts.owner.owner,
        sightings: attempts.sightings,
        record,
        wallNow: yield* Clock.currentTimeMillis,
        now,
        pollMs: yield* jitteredPoll(args)
      })
    }
    attempts.expired = plan._tag === "Now" ? plan.expired : []
    const next = PermitAttempt.next(plan, attempts.eager, now, waitUntil)
    if (next._tag === "Again") return
    if (next._tag === "GiveUp") return yield* giveUp(args, record ?? attempts.last, now)
    return yield* sleepFor(attempts, next.sleepMs ?? (yield* jitteredPoll(args)), now, waitUntil)
  })

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
    owner: AcquireOwner.make(),
    create: false,
    expired: [],
    eager: 0,
    last: undefined,
    sightings: new Map()
  }
  const answersAtOnce = MemoryStore.answersAtOnce(store)

  const attempt = (sentAt: number) =>
    Effect.suspend(() => {
      AcquireOwner.sending(attempts.owner, sentAt)
      attempts.eager += 1
      return store.tryAcquirePermits({
        name,
        owner: attempts.owner.owner,
        holder: lease.holder,
        limit: options.limit,
        permits: options.permits,
        leaseMs: lease.leaseMs,
        data: lease.data,
        takeover,
        expired: attempts.create ? [] : attempts.expired,
        create: attempts.create
      })
    })

  const sleep = (ms: number, now: number) => sleepFor(attempts, ms, now, waitUntil)

  const loop: Effect.Effect<Acquired, LockNotAcquired | SemaphoreLimitMismatch | LockStoreError> = Effect.gen(
    function*() {
      // The span of the acquire already carries the name.
      yield* Effect.annotateCurrentSpan("semaphore.owner", attempts.owner.owner)
      while (true) {
        const sentAt = yield* monotonicMillis
        const result = yield* outcome(attempt(sentAt))
        const now = yield* monotonicMillis
        if (result._tag === "Failure") {
          // The write may have applied: retry with the same owner, which recognises its own entry below.
          AcquireOwner.failed(attempts.owner, result.failure)
          if (!result.failure.retryable || AcquireBoundCore.isWaitOver(now, waitUntil)) {
            return yield* Effect.fail(result.failure)
          }
          yield* sleep(yield* jitteredPoll(args), now)
          continue
        }
        AcquireOwner.answered(attempts.owner)
        const answer = PermitAttempt.judge({
          options: decisions,
          name,
          owner: attempts.owner,
          result: result.success,
          sentAt,
          now
        })
        if (answer._tag === "LimitMismatch") {
          return yield* new SemaphoreLimitMismatch({ name, limit: options.limit, storedLimit: answer.storedLimit })
        }
        if (answer._tag === "Acquired") return { record: answer.record, sentAt: answer.sentAt }
        if (answer._tag === "TooLate") {
          // Give it back, and go on with a fresh owner id, so that the give-back, however late it lands, frees nothing
          // but this entry. If it fails, the entry stays under the old owner id until its lease is over, as any
          // holder's that stopped renewing.
          yield* cleanup(args, attempts.owner.owner)
          AcquireOwner.renew(attempts.owner)
          yield* Effect.annotateCurrentSpan("semaphore.owner", attempts.owner.owner)
          yield* Effect.logWarning(`an acquire of semaphore "${name}" was answered too late to use; retrying`)
          if (AcquireBoundCore.isWaitOver(now, waitUntil)) {
            return yield* giveUp(args, attempts.last, now, { answeredAfterMs: answer.answeredAfterMs })
          }
          yield* sleep(yield* jitteredPoll(args), now)
          continue
        }
        yield* afterConflict(args, attempts, answer.current, now, waitUntil)
      }
    }
  )

  return AcquireBound.bound({
    loop,
    mayHaveWritten: () => AcquireOwner.mayHaveWritten(attempts.owner),
    giveBack: Effect.suspend(() => cleanup(args, attempts.owner.owner)),
    answersAtOnce,
    waitUntil,
    unanswered: (now) => giveUp(args, attempts.last, now, { unansweredAfterMs: now - waitUntil })
  })
}
