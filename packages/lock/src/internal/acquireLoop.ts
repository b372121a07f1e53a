/**
 * The acquire loop of the fiber at the head of a name's local queue: one conditional write per attempt; on conflict,
 * sleep until the holder's lease could be over or a jittered poll interval, whichever is sooner, until `wait` runs
 * out, reserving the lock to be next as `reservation.ts` says. A store call still unanswered then gets `waitSlack`
 * more, and is abandoned after that: `wait` bounds the acquire whatever the store does.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import { LockNotAcquired, type LockStoreError } from "../LockError.js"
import type { LockRecord } from "../LockRecord.js"
import type * as LockStore from "../LockStore.js"
import * as AcquireBound from "./acquireBound.js"
import * as AcquireOwner from "./acquireOwner.js"
import { monotonicMillis } from "./clock.js"
import { giveBack } from "./giveBack.js"
import * as LeaseStore from "./leaseStore.js"
import * as MemoryStore from "./memoryStore.js"
import * as Metrics from "./metrics.js"
import type * as Options from "./options.js"
import * as Reservation from "./reservation.js"

/** @internal */
export interface Acquired {
  readonly record: LockRecord
  /** Monotonic ms just before the write that set the current lease was sent (or an equally safe estimate). */
  readonly sentAt: number
}

/** A holder as seen by an observed-mode waiter, with the monotonic time it was first seen in this state. */
interface Observation {
  readonly owner: string
  readonly fence: number
  readonly version: number
  readonly leaseMs: number
  readonly seenAt: number
}

const sameHolder = (observation: Observation | undefined, record: LockRecord) =>
  observation !== undefined && observation.owner === record.owner && observation.fence === record.fence &&
  observation.version === record.version

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
  observation: Observation | undefined
  /** The holder the last conflict named, for the answer when the wait runs out with a call in flight. */
  lastHolder: LockRecord | undefined
  /** Epoch ms on our wall clock when the caller began to ask, set at the first conflict: a reservation's priority. */
  waitingSince: number | undefined
}

const takeover = (options: Options.Resolved, attempts: Attempts, now: number): LockStore.Takeover => {
  if (options.takeover === "absolute") return { _tag: "Absolute", maxClockSkewMs: options.maxClockSkewMs }
  const seen = attempts.observation
  return { _tag: "Observed", stale: seen !== undefined && now - seen.seenAt >= seen.leaseMs ? seen : undefined }
}

/** How long until the holder's lease could be taken over, on our clocks. */
const untilTakeover = (options: Options.Resolved, attempts: Attempts, holder: LockRecord | undefined, now: number) =>
  Effect.gen(function*() {
    if (holder === undefined) return 0
    if (options.takeover === "absolute") {
      const wallNow = yield* Clock.currentTimeMillis
      return holder.leaseUntil + options.maxClockSkewMs + 1 - wallNow
    }
    const seen = attempts.observation
    return seen === undefined ? holder.leaseMs : seen.seenAt + seen.leaseMs - now
  })

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

/** A holder, if the record has one: a free record a reservation kept us out of names nobody. */
const heldOnly = (record: LockRecord | undefined) => record?.owner === undefined ? undefined : record

/** Remembers a conflicting holder, for observed takeover: seen no later than `now`. */
const observe = (attempts: Attempts, holder: LockRecord | undefined, now: number) => {
  if (holder === undefined || holder.owner === undefined || sameHolder(attempts.observation, holder)) return
  attempts.observation = {
    owner: holder.owner,
    fence: holder.fence,
    version: holder.version,
    leaseMs: holder.leaseMs,
    seenAt: now
  }
}

/**
 * Tries until acquired or `wait` (from `startedAt`, monotonic ms) passes, plus `waitSlack` for a call in flight.
 * Interruptible everywhere; if it ends without the lock after a write that may have applied (interrupted in flight,
 * or a store error), it releases by owner so that nothing is left held: in the background, so that neither the
 * caller's answer nor an interruption waits for a store that does not answer.
 *
 * @internal
 */
export const run = (args: Args): Effect.Effect<Acquired, LockNotAcquired | LockStoreError> => {
  const { name, options, store } = args
  const waitUntil = options.waitMs === undefined ? Infinity : args.startedAt + options.waitMs
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
        takeover: takeover(options, attempts, sentAt)
      })
    })

  const sleepBeforeRetry = (now: number, atMost: number = Infinity) =>
    Effect.flatMap(
      AcquireBound.jitteredPoll(options.pollIntervalMs),
      (poll) => Effect.sleep(Duration.millis(Math.max(0, Math.min(poll, atMost, waitUntil - now))))
    )

  const sleepAfterConflict = (now: number, conflict: LockRecord | undefined) =>
    Effect.gen(function*() {
      const owner = attempts.owner.owner
      const wallNow = yield* Clock.currentTimeMillis
      // When the caller began to ask, on the wall clock reservations are compared by.
      const waitingSince = attempts.waitingSince ??= wallNow - (now - args.startedAt)
      const record =
        conflict !== undefined && Reservation.shouldReserve(options, owner, conflict, waitingSince, wallNow)
          // No longer than we may still wait: a waiter that gives up keeps nobody out.
          ? yield* Reservation.reserve(store, {
            name,
            owner,
            reserveMs: Math.max(1, Math.min(Reservation.reservationMs(options), waitUntil - now)),
            waitingSince
          }, conflict)
          : conflict
      const untilTakeoverMs = record?.owner === undefined ? 0 : yield* untilTakeover(options, attempts, record, now)
      const pollMs = yield* AcquireBound.jitteredPoll(options.pollIntervalMs)
      const ms = Reservation.sleepMs({ options, owner, record, untilTakeoverMs, pollMs, wallNow })
      yield* Effect.sleep(Duration.millis(Math.max(0, Math.round(Math.min(ms, waitUntil - now)))))
    })

  const loop: Effect.Effect<Acquired, LockNotAcquired | LockStoreError> = Effect.gen(function*() {
    // The span of the acquire already carries the name.
    yield* Effect.annotateCurrentSpan("lock.owner", attempts.owner.owner)
    while (true) {
      const sentAt = yield* monotonicMillis
      const result = yield* Effect.either(attempt(sentAt))
      const now = yield* monotonicMillis
      if (result._tag === "Left") {
        // The write may or may not have applied: retry with the same owner, which recognises its own record below.
        AcquireOwner.failed(attempts.owner, result.left)
        if (!result.left.retryable || now >= waitUntil) return yield* Effect.fail(result.left)
        yield* sleepBeforeRetry(now)
        continue
      }
      AcquireOwner.answered(attempts.owner)
      const outcome = result.right
      const holder = outcome._tag === "Conflict" ? outcome.current : undefined
      if (heldOnly(holder) !== undefined) attempts.lastHolder = holder
      // Ours: this write's, or (its own owner in a conflict) one whose answer never came. Either way the lease may
      // have been set by any write of the owner whose outcome is unknown: count it from the earliest of them, which
      // can only make the local deadline earlier than the lease's.
      const record = outcome._tag === "Acquired"
        ? outcome.record
        : holder !== undefined && holder.owner === attempts.owner.owner
        ? holder
        : undefined
      if (record !== undefined) {
        const candidate: Acquired = { record, sentAt: AcquireOwner.leaseStart(attempts.owner, sentAt) }
        if (candidate.sentAt + options.leaseMs - options.safetyMarginMs > now) return candidate
        // The lease could already be taken over: running the section now could overlap the next holder's. Give the
        // write back, and go on with a fresh owner id, so that the give-back, however late it lands, frees nothing
        // but this lease.
        yield* cleanup(args, attempts.owner.owner)
        AcquireOwner.renew(attempts.owner)
        yield* Effect.annotateCurrentSpan("lock.owner", attempts.owner.owner)
        yield* Effect.logWarning(`an acquire of "${name}" was answered too late to use; retrying`)
        if (now >= waitUntil) return yield* giveUp(args, undefined, now, { answeredAfterMs: now - sentAt })
        yield* sleepBeforeRetry(now)
        continue
      }
      yield* Metric.increment(Metrics.conflicts)
      observe(attempts, holder, now)
      if (now >= waitUntil) return yield* giveUp(args, heldOnly(holder), now)
      yield* sleepAfterConflict(now, holder)
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
