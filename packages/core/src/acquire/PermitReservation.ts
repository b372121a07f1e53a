/**
 * Fair waiting on a semaphore's record, for read/write locks: a lock's reservations (`Reservation`) applied to
 * permits. The waiter that has waited longest reserves the record for the permits it waits for, and while its
 * reservation keeps others out, no one may take permits that would not fit beside it (`SemaphoreRecord.isKeptOutAt`):
 * a writer's reservation stops new readers, so a stream of readers can not starve a writer; a reader's stops a new
 * writer, so a stream of writers can not starve a reader. When, how long and how long to sleep are a lock's rules, on
 * a view of the record as a lock (`lockView`). As for a lock, reservations only make waits fairer: mutual exclusion
 * never depends on them.
 *
 * @since 1.0.0
 */
import type { LockRecord } from "../record/LockRecord.js"
import type { SemaphoreRecord } from "../record/SemaphoreRecord.js"
import * as Reservation from "./Reservation.js"

/**
 * The record as a lock's reservations see it: held when anyone holds permits (by the first holder, since a holder
 * never waits), acquired when the latest holder acquired (a reserver follows the newest hold, not the oldest), and
 * the record's reservation.
 *
 * @since 1.0.0
 * @category constructors
 */
export const lockView = (record: SemaphoreRecord): LockRecord => {
  const first = record.holders[0]
  const reservation = record.reservation
  return {
    name: record.name,
    owner: first?.owner,
    holder: first?.holder,
    leaseUntil: first?.leaseUntil ?? 0,
    leaseMs: first?.leaseMs ?? 0,
    fence: record.fence,
    version: first?.version ?? 0,
    sequence: 0,
    acquiredAt: record.holders.reduce<number | undefined>(
      (latest, holder) => latest === undefined ? holder.acquiredAt : Math.max(latest, holder.acquiredAt),
      undefined
    ),
    data: undefined,
    session: undefined,
    reservedBy: reservation?.reservedBy,
    reservedUntil: reservation?.reservedUntil ?? 0,
    reservedSince: reservation?.reservedSince ?? 0,
    reservedFrom: reservation?.reservedFrom ?? 0
  }
}

/**
 * Whether to reserve after a conflict on `record`, by a lock's rule (`Reservation.shouldReserve`).
 *
 * @since 1.0.0
 * @category predicates
 */
export const shouldReserve = (
  options: Reservation.ReservationOptions,
  owner: string,
  record: SemaphoreRecord,
  waitingSince: number,
  wallNow: number
): boolean => Reservation.shouldReserve(options, owner, lockView(record), waitingSince, wallNow)

/**
 * How long a reservation made now lasts, and from when it keeps others out, by a lock's rules.
 *
 * @since 1.0.0
 * @category constructors
 */
export const reservationTimes = (
  options: Reservation.ReservationOptions,
  record: SemaphoreRecord,
  now: number,
  wallNow: number,
  waitUntil: number
): { readonly reserveMs: number; readonly graceMs: number } => ({
  reserveMs: Reservation.reserveMs(options, now, waitUntil),
  graceMs: Reservation.graceMs(options, lockView(record), wallNow)
})

/**
 * How long to sleep after a conflict on `record`, as a lock's reservations change it (`Reservation.sleepMs`), given
 * the sleep without them (`usualMs`: until a holder could be over, or a poll).
 *
 * @since 1.0.0
 * @category constructors
 */
export const sleepMs = (args: {
  readonly options: Reservation.ReservationOptions
  readonly owner: string
  readonly record: SemaphoreRecord
  readonly usualMs: number
  readonly pollMs: number
  readonly wallNow: number
  readonly waitingSince: number
}): number =>
  Reservation.sleepMs({
    options: args.options,
    owner: args.owner,
    record: lockView(args.record),
    untilTakeoverMs: args.usualMs,
    pollMs: args.pollMs,
    wallNow: args.wallNow,
    waitingSince: args.waitingSince
  })
