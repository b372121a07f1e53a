/**
 * The acquire loop of the fiber at the head of a name's local queue: one conditional write per attempt; on conflict,
 * sleep until the holder's lease could be over or a jittered poll interval, whichever is sooner, until `wait` runs
 * out, reserving the lock to be next as `reservation.ts` says. What each answer
 * leads to is decided in `@leasehold/core/acquire/LockAttempt`. A store call still unanswered then gets `waitSlackMs`
 * more, and is abandoned after that: `wait` bounds the acquire whatever the store does.
 *
 * @internal
 */
import * as AcquireBoundCore from "@leasehold/core/acquire/AcquireBound"
import * as LockAttempt from "@leasehold/core/acquire/LockAttempt"
import * as ReservationCore from "@leasehold/core/acquire/Reservation"
import type { LockRecord } from "@leasehold/core/record/LockRecord"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { LockNotAcquired, LockStoreError } from "../../LockError.js"
import type * as LockStore from "../../LockStore.js"
import { giveBack } from "../lease/giveBack.js"
import * as LeaseStore from "../lease/leaseStore.js"
import type * as Options from "../options/options.js"
import { outcome } from "../outcome.js"
import { monotonicMillis } from "../process/clock.js"
import * as Metrics from "../process/metrics.js"
import * as MemoryStore from "../store/memoryStore.js"
import * as AcquireBound from "./acquireBound.js"
import * as AcquireOwner from "./acquireOwner.js"
import * as Reservation from "./reservation.js"

/** @internal */
export interface Acquired {
  readonly record: LockRecord
  /** Monotonic ms just before the write that set the current lease was sent (or an equally safe estimate). */
  readonly sentAt: number
}

/** @internal */
export interface Args {
  readonly store: LockStore.LockStore
  readonly name: string
  readonly options: Options.Resolved
  /** Monotonic ms when the caller began to acquire: `wait` counts from here. */
  readonly startedAt: number
}

/** What one acquire has learned so far. */
interface Attempts {
  /** The owner id the attempts write with, and which of its writes may have applied without our knowing. */
  readonly owner: AcquireOwner.AcquireOwner
  /** The holder as an observed-mode waiter first saw it in its current state. */
  observation: LockAttempt.Observation | undefined
  /** The holder the last conflict named, for the answer when the wait runs out with a call in flight. */
  lastHolder: LockRecord | undefined
  /** Epoch ms on our wall clock when the caller began to ask, set at the first conflict: a reservation's priority. */
  waitingSince: number | undefined
}

const giveUp = (
  args: Args,
  holder: LockRecord | undefined,
  now: number,
  late?: { readonly answeredAfterMs?: number; readonly unansweredAfterMs?: number }
) => AcquireBound.giveUp({ name: args.name, startedAt: args.startedAt, holder, ...late }, now)

/** Releases by owner whatever the writes of `owner` may have left held. */
const cleanup = ({ name, store }: Args, owner: string) =>
  giveBack(
    LeaseStore.ofLock(store),
    { name, owner, fence: undefined },
    (reason) =>
      `could not clean up after an unfinished acquire of "${name}" (${reason}); if a write of it was applied, its ` +
      `lease will expire`
  )

/**
 * Tries until acquired or `wait` (from `startedAt`, monotonic ms) passes, plus `waitSlackMs` for a call in flight.
 * Interruptible everywhere; if it ends without the lock after a write that may have applied (interrupted in flight,
 * or a store error), it releases by owner so that nothing is left held: in the background, so that neither the
 * caller's answer nor an interruption waits for a store that does not answer.
 *
 * @internal
 */
export const run = (args: Args): Effect.Effect<Acquired, LockNotAcquired | LockStoreError> => {
  const { name, options, store } = args
  const waitUntil = AcquireBoundCore.waitUntil(args.startedAt, options.waitMs)
  const attempts: Attempts = {
    owner: AcquireOwner.make(),
    observation: undefined,
    lastHolder: undefined,
    waitingSince: undefined
  }
  const answersAtOnce = MemoryStore.answersAtOnce(store)

  const attempt = (sentAt: number) =>
    Effect.suspend(() => {
      AcquireOwner.sending(attempts.owner, sentAt)
      return store.tryAcquire({
        name,
        owner: attempts.owner.owner,
        holder: options.holder,
        leaseMs: options.leaseMs,
        data: options.data,
        takeover: LockAttempt.takeover(options, attempts.observation, sentAt)
      })
    })

  const sleepBeforeRetry = (now: number) =>
    Effect.flatMap(
      AcquireBound.jitteredPoll(options.pollIntervalMs),
      (poll) => Effect.sleep(Duration.millis(AcquireBoundCore.retrySleepMs(poll, now, waitUntil)))
    )

  const sleepAfterConflict = (now: number, conflict: LockRecord | undefined) =>
    Effect.gen(function*() {
      const owner = attempts.owner.owner
      const wallNow = yield* Clock.currentTimeMillis
      const waitingSince = attempts.waitingSince ??= ReservationCore.waitingSince(wallNow, now, args.startedAt)
      const record =
        conflict !== undefined && ReservationCore.shouldReserve(options, owner, conflict, waitingSince, wallNow)
          ? yield* Reservation.reserve(store, {
            name,
            owner,
            reserveMs: ReservationCore.reserveMs(options, now, waitUntil),
            waitingSince
          }, conflict)
          : conflict
      // The wall clock is read again after the reservation's round trip, and only when the takeover time is on it.
      const takeoverWallNow = LockAttempt.judgedByWallClock(options, record) ? yield* Clock.currentTimeMillis : wallNow
      const untilTakeoverMs = LockAttempt.untilTakeoverMs(options, attempts.observation, record, now, takeoverWallNow)
      const pollMs = yield* AcquireBound.jitteredPoll(options.pollIntervalMs)
      const ms = ReservationCore.sleepMs({ options, owner, record, untilTakeoverMs, pollMs, wallNow })
      yield* Effect.sleep(Duration.millis(AcquireBoundCore.conflictSleepMs(ms, now, waitUntil)))
    })

  const loop: Effect.Effect<Acquired, LockNotAcquired | LockStoreError> = Effect.gen(function*() {
    // The span of the acquire already carries the name.
    yield* Effect.annotateCurrentSpan("lock.owner", attempts.owner.owner)
    while (true) {
      const sentAt = yield* monotonicMillis
      const result = yield* outcome(attempt(sentAt))
      const now = yield* monotonicMillis
      if (result._tag === "Failure") {
        // The write may or may not have applied: retry with the same owner, which recognises its own record below.
        AcquireOwner.failed(attempts.owner, result.failure)
        if (!result.failure.retryable || AcquireBoundCore.isWaitOver(now, waitUntil)) {
          return yield* Effect.fail(result.failure)
        }
        yield* sleepBeforeRetry(now)
        continue
      }
      AcquireOwner.answered(attempts.owner)
      attempts.lastHolder = LockAttempt.lastHolder(attempts.lastHolder, result.success)
      const answer = LockAttempt.judge({ options, owner: attempts.owner, result: result.success, sentAt, now })
      if (answer._tag === "Acquired") return { record: answer.record, sentAt: answer.sentAt }
      if (answer._tag === "TooLate") {
        // Give the write back, and go on with a fresh owner id, so that the give-back, however late it lands, frees
        // nothing but this lease.
        yield* cleanup(args, attempts.owner.owner)
        AcquireOwner.renew(attempts.owner)
        yield* Effect.annotateCurrentSpan("lock.owner", attempts.owner.owner)
        yield* Effect.logWarning(`an acquire of "${name}" was answered too late to use; retrying`)
        if (AcquireBoundCore.isWaitOver(now, waitUntil)) {
          return yield* giveUp(args, undefined, now, { answeredAfterMs: answer.answeredAfterMs })
        }
        yield* sleepBeforeRetry(now)
        continue
      }
      yield* Metrics.increment(Metrics.conflicts)
      attempts.observation = LockAttempt.observe(attempts.observation, answer.holder, now)
      if (AcquireBoundCore.isWaitOver(now, waitUntil)) {
        return yield* giveUp(args, LockAttempt.heldOnly(answer.holder), now)
      }
      yield* sleepAfterConflict(now, answer.holder)
    }
  })

  return AcquireBound.bound({
    loop,
    mayHaveWritten: () => AcquireOwner.mayHaveWritten(attempts.owner),
    giveBack: Effect.suspend(() => cleanup(args, attempts.owner.owner)),
    answersAtOnce,
    waitUntil,
    unanswered: (now) => giveUp(args, attempts.lastHolder, now, { unansweredAfterMs: now - waitUntil })
  })
}
