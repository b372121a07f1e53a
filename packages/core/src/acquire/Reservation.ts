/**
 * Fair handover across processes: what a waiter does about reservations after a lost poll. Go's `sync.Mutex` is the
 * model: whoever asks for a free lock may take it (a holder that asks again at once keeps it: the cheapest handover
 * is none) until a waiter has waited a poll interval. That waiter reserves the lock (one conditional write, refreshed
 * only as it nears its end), and the reservation keeps others out a turn later (`turnMs`): the holder's process may go
 * on taking the lock for that long, and then the reserver is the next holder (if the lock was freed meanwhile, it
 * acquires at once). A waiter that began to wait earlier takes the reservation over, keeping its start: the longest
 * waiter goes next, and no turn is made longer. The reserver follows the hold closely once its reservation keeps
 * others out; a waiter behind someone else's reservation sleeps until that reservation should have served its
 * reserver. Reservations only make waits fairer: a failed one never fails the acquire, and mutual exclusion never
 * depends on them.
 *
 * @since 1.0.0
 */
import { isReservableAt, isReservedForOtherAt, type LockRecord } from "../record/LockRecord.js"

/**
 * What reservations depend on of an acquire's options (times in ms).
 *
 * @since 1.0.0
 * @category models
 */
export interface ReservationOptions {
  readonly takeover: "absolute" | "observed"
  readonly pollIntervalMs: number
  readonly leaseMs: number
}

/**
 * How many poll intervals a reservation lasts (bounded by the lease): a live reserver polls, and refreshes it, well
 * within that; a crashed one keeps a free lock from everyone else for at most that long.
 */
const reservationPolls = 4

/**
 * The share of a poll that a waiter behind someone else's reservation sleeps past the time it keeps others out: by
 * then its reserver is usually in, and the next reservation starts the next turn.
 */
const behindReservedShare = 2

/** The reserver's shortest sleep, as a share of the poll interval: it follows short holds without spinning. */
const reserverPollShare = 8

/**
 * How long a turn lasts: the time from a reservation until it keeps others out, in ms. One poll interval: the
 * longest a waiter that does not reserve may take to see a freed lock anyway, so the holder's process keeps the lock
 * no longer than polling would lose. A shorter turn hands over more often, and every handover costs the waiters'
 * reads and a reservation: fewer acquisitions per second, and no shorter waits.
 *
 * @since 1.0.0
 * @category constructors
 */
export const turnMs = (options: ReservationOptions): number => Math.max(1, options.pollIntervalMs)

/**
 * How long after a reservation made at `wallNow` on `record` it should begin to keep others out: at once on a free
 * lock (there is no turn to finish), a turn later on a held one, and never later than the start of the live
 * reservation it refreshes or takes over, so that taking a reservation over never makes a turn longer.
 *
 * @since 1.0.0
 * @category constructors
 */
export const graceMs = (options: ReservationOptions, record: LockRecord, wallNow: number): number => {
  const turn = record.owner === undefined ? 0 : turnMs(options)
  const live = record.reservedBy !== undefined && record.reservedUntil >= wallNow
  return live ? Math.max(0, Math.min(turn, record.reservedFrom - wallNow)) : turn
}

/**
 * How long a reservation of this acquisition lasts, in ms.
 *
 * @since 1.0.0
 * @category constructors
 */
export const reservationMs = (options: ReservationOptions): number =>
  Math.max(1, Math.min(options.pollIntervalMs * reservationPolls, options.leaseMs))

/**
 * How long a reservation made at `now` (monotonic ms) asks for: no longer than the acquire may still wait, since a
 * waiter that gives up keeps nobody out.
 *
 * @since 1.0.0
 * @category constructors
 */
export const reserveMs = (options: ReservationOptions, now: number, waitUntil: number): number =>
  Math.max(1, Math.min(reservationMs(options), waitUntil - now))

/**
 * Epoch ms on the wall clock when the caller began to ask, from `wallNow` and the monotonic times of now and of the
 * start: the priority reservations are compared by.
 *
 * @since 1.0.0
 * @category constructors
 */
export const waitingSince = (wallNow: number, now: number, startedAt: number): number => wallNow - (now - startedAt)

/**
 * Whether to reserve after a conflict on `record` (at `wallNow`, our wall clock): only with absolute takeover
 * (reservations are judged by wall clocks), once we have waited a poll interval (a short wait is not worth a write),
 * on a lock we do not hold, when no one else's reservation is live or its reserver began to wait after us, and
 * ours is missing or would lapse before the next poll.
 *
 * @since 1.0.0
 * @category predicates
 */
export const shouldReserve = (
  options: ReservationOptions,
  owner: string,
  record: LockRecord,
  waitingSince: number,
  wallNow: number
): boolean =>
  options.takeover === "absolute" && record.owner !== owner && wallNow - waitingSince >= options.pollIntervalMs &&
  isReservableAt(record, owner, waitingSince, wallNow) &&
  (record.reservedBy !== owner || record.reservedUntil - wallNow <= options.pollIntervalMs)

/**
 * How long to sleep after a conflict on `record`: at most a poll or until the takeover time, as always. Two cases
 * sleep otherwise. Holding the reservation of a held lock, sleep as long as the holder has held it so far (on the wall
 * clocks), no less than a share of a poll nor more than a poll, and until the reservation keeps others out (at most a
 * poll interval): a short hold is followed closely from the moment the holder's process can no longer take the lock
 * again, and a long one is caught at most its own length after it ends, with ever fewer polls. Nothing is learned
 * across holds, so a slow handover never makes the next one slower. Behind someone else's live reservation, sleep
 * until it keeps others out and half a poll more (when its reserver should be in, and the next reservation is due),
 * or half of how much later than its reserver we began to wait, if that is longer (further back in the line), and no
 * longer than the reservation lasts.
 *
 * @since 1.0.0
 * @category constructors
 */
export const sleepMs = (args: {
  readonly options: ReservationOptions
  readonly owner: string
  readonly record: LockRecord | undefined
  readonly untilTakeoverMs: number
  readonly pollMs: number
  readonly wallNow: number
  /** Epoch ms on our wall clock when the caller began to ask (`waitingSince`). */
  readonly waitingSince: number
}): number => {
  const { options, owner, pollMs, record, untilTakeoverMs, wallNow } = args
  const usual = Math.min(pollMs, untilTakeoverMs)
  if (record === undefined) return usual
  const untilKeptOut = record.reservedFrom - wallNow
  if (record.owner !== undefined && record.reservedBy === owner && record.reservedUntil >= wallNow) {
    const floor = Math.max(1, options.pollIntervalMs / reserverPollShare)
    const heldFor = record.acquiredAt === undefined ? floor : wallNow - record.acquiredAt
    const follow = Math.min(pollMs, Math.max(floor, heldFor))
    // Before the reservation keeps others out, a look would find the holder's process taking the lock again: sleep
    // until then, no longer than a poll interval.
    return Math.min(untilTakeoverMs, Math.max(Math.min(untilKeptOut, options.pollIntervalMs), follow))
  }
  if (!isReservedForOtherAt(record, owner, wallNow)) return usual
  const untilLapse = Math.min(record.reservedUntil + 1 - wallNow, reservationMs(options))
  const untilServed = Math.max(0, untilKeptOut) + pollMs / behindReservedShare
  // Further back in the line, a waiter that began to wait well after the reserver sleeps about half its lead on it:
  // a long line does not look once a turn each, and whoever is next still looks within half a turn or so.
  const furtherBack = Math.max(0, args.waitingSince - record.reservedSince) / 2
  // A takeover time already past would not let us in before the reservation lapses: waking for it would spin.
  return Math.min(
    Math.max(untilServed, furtherBack),
    untilLapse,
    untilTakeoverMs > 0 ? untilTakeoverMs : Infinity
  )
}
