/**
 * The one record a store keeps per semaphore name: its limit, the permits in use, and who holds them.
 *
 * @since 1.0.0
 */
import type { LockRecord } from "./LockRecord.js"
import * as Utf8 from "./Utf8.js"

/**
 * One acquisition's share of a semaphore: `permits` of its `limit`, leased as a lock is.
 *
 * @since 1.0.0
 * @category models
 */
export interface PermitHolder {
  /** Random per acquisition; identifies this holder in every later renew and release. */
  readonly owner: string
  /** A readable name for the holding process, for people. */
  readonly holder: string
  /** How many of the semaphore's permits this acquisition holds (at least 1). */
  readonly permits: number
  /** The fencing token of this acquisition: greater than that of every earlier acquisition of the semaphore. */
  readonly fence: number
  /** Epoch ms: the holder's clock when its last acquire or renew started, plus the lease. */
  readonly leaseUntil: number
  /** The lease duration in ms, for observers that do not trust wall clocks (observed takeover). */
  readonly leaseMs: number
  /**
   * Changed by every renew of this holder, whatever any clock says: an observer that sees the same version a full
   * lease apart knows that the holder did not renew in between.
   */
  readonly version: number
  /** The write sequence of this holder's lease, as a lock's (`LockRecord.sequence`): 0 before its first renew. */
  readonly sequence: number
  /** Epoch ms when this holder acquired its permits. */
  readonly acquiredAt: number
  /** Optional payload the holder stored with its permits, already encoded (at most `maxDataBytes`). */
  readonly data: string | undefined
  /**
   * The id of the lease session the permits are held under, or `undefined`: held on a lease of their own. As a lock's
   * (`LockRecord.session`): not renewed by themselves, with `LeaseSession.heldUntil` as their lease fields.
   */
  readonly session?: string | undefined
}

/**
 * A semaphore's stored state. The record outlives its holders, so that its fence stays monotonic.
 *
 * @since 1.0.0
 * @category models
 */
export interface SemaphoreRecord {
  /** The semaphore name as the user gave it (without any store prefix). */
  readonly name: string
  /** How many permits may be held at once. Every process that uses the semaphore must ask with this limit. */
  readonly limit: number
  /** The last fence issued: strictly increasing across acquisitions, holders and releases. */
  readonly fence: number
  /** The permits held: the sum of `permits` over `holders` (expired holders included until someone removes them). */
  readonly used: number
  /** Every holder, expired or not, in the order of their fences. */
  readonly holders: ReadonlyArray<PermitHolder>
  /** The waiter named next, if one reserved (`PermitReservation`); kept until its reserver acquires. */
  readonly reservation?: PermitReservation | undefined
  /** Whether the record is a read/write lock's (`ReadWriteMode`): set by the acquire that created it, for people. */
  readonly readWrite?: boolean | undefined
}

/**
 * A waiter's claim to be next, as a lock's reservation (`LockRecord.reservedBy`): the fields and their meaning are a
 * lock's, with the permits the reserver waits for. While it keeps others out, an acquire by anyone else is refused if
 * its permits and the reserver's would not fit in the limit together, whatever is held: a writer's reservation (all
 * the permits) keeps everyone out, a reader's (one) keeps out only a writer.
 *
 * @since 1.0.0
 * @category models
 */
export interface PermitReservation {
  readonly reservedBy: string
  /** The permits the reserver waits for. */
  readonly reservedPermits: number
  /** Epoch ms on the reserver's clock: the reservation lapses after it. */
  readonly reservedUntil: number
  /** Epoch ms on the reserver's clock when it began to wait: an earlier waiter may take the reservation over. */
  readonly reservedSince: number
  /** Epoch ms on the reserver's clock from which the reservation keeps others out. */
  readonly reservedFrom: number
}

/**
 * Whether someone else's reservation keeps an acquire of `permits` by `owner` out of the record at `now` (epoch ms,
 * the caller's clock): it is live, it has begun to keep others out, and the two acquisitions would not fit in the
 * limit together.
 *
 * @since 1.0.0
 * @category predicates
 */
export const isKeptOutAt = (record: SemaphoreRecord, owner: string, permits: number, now: number): boolean => {
  const reservation = record.reservation
  return reservation !== undefined && reservation.reservedBy !== owner && reservation.reservedUntil >= now &&
    reservation.reservedFrom <= now && permits + reservation.reservedPermits > record.limit
}

/**
 * Whether `owner`, waiting since `waitingSince` (epoch ms, its clock), may reserve the record at `now`: no one else's
 * reservation is live, or the live one's reserver began to wait later (as a lock's, `LockRecord.isReservableAt`).
 *
 * @since 1.0.0
 * @category predicates
 */
export const isReservableAt = (
  record: SemaphoreRecord,
  owner: string,
  waitingSince: number,
  now: number
): boolean => {
  const reservation = record.reservation
  return reservation === undefined || reservation.reservedBy === owner || reservation.reservedUntil < now ||
    reservation.reservedSince > waitingSince
}

/**
 * The highest `limit` a semaphore may have. An acquire may have to remove up to `limit` expired holders in its one
 * conditional write, and each removal adds about 45 characters to the write's condition, which DynamoDB caps at
 * 4 KB: 64 removals take under 3 KB. The item stays far inside DynamoDB's 400 KB as well: 64 holders of at most
 * about 2.5 KB each (an owner id of `maxOwnerBytes`, kept twice, a holder name of `LockRecord.maxHolderBytes`, data
 * of `maxDataBytes`, and the numbers) make about 160 KB.
 *
 * @since 1.0.0
 * @category constants
 */
export const maxLimit = 64

/**
 * The most `data` one holder of a semaphore may carry, in UTF-8 bytes. Far less than a lock's: one item holds the
 * data of every holder.
 *
 * @since 1.0.0
 * @category constants
 */
export const maxDataBytes = 1024

/**
 * The longest owner id of a semaphore holder, in UTF-8 bytes: one item keeps every holder's owner id, twice (`Lock`
 * makes ids of 32 bytes).
 *
 * @since 1.0.0
 * @category constants
 */
export const maxOwnerBytes = 128

/**
 * The holder with this owner id, if it holds permits.
 *
 * @since 1.0.0
 * @category getters
 */
export const holderOf = (record: SemaphoreRecord, owner: string): PermitHolder | undefined =>
  record.holders.find((holder) => holder.owner === owner)

/**
 * How many permits are free: held by nobody, expired holders counting as holders until someone removes them.
 *
 * @since 1.0.0
 * @category getters
 */
export const available = (record: SemaphoreRecord): number => record.limit - record.used

/**
 * Whether a holder's lease may be taken over at `now` (epoch ms) when clocks are trusted within `maxClockSkewMs`, as
 * a lock's is (see `LockRecord.isAvailableAt`).
 *
 * @since 1.0.0
 * @category predicates
 */
export const isExpiredAt = (holder: PermitHolder, now: number, maxClockSkewMs: number): boolean =>
  holder.leaseUntil + maxClockSkewMs < now

/**
 * One holder's permits as a `LockRecord`, so that what keeps a lock's lease can keep them: the semaphore's name, the
 * holder's owner, fence, lease, data and session, and no reservation.
 *
 * @since 1.0.0
 * @category constructors
 */
export const permitRecord = (name: string, holder: PermitHolder): LockRecord => ({
  name,
  owner: holder.owner,
  holder: holder.holder,
  leaseUntil: holder.leaseUntil,
  leaseMs: holder.leaseMs,
  fence: holder.fence,
  version: holder.version,
  sequence: holder.sequence,
  acquiredAt: holder.acquiredAt,
  data: holder.data,
  session: holder.session,
  reservedBy: undefined,
  reservedUntil: 0,
  reservedSince: 0,
  reservedFrom: 0
})

/**
 * What is wrong with a semaphore's `limit` and an acquisition's `permits`, or `undefined`: both whole numbers, with
 * 1 <= permits <= limit <= `maxLimit`.
 *
 * @since 1.0.0
 * @category validation
 */
export const permitsProblem = (limit: unknown, permits: unknown): string | undefined => {
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > maxLimit) {
    return `semaphore limit ${String(limit)} is not a whole number from 1 to ${maxLimit}`
  }
  if (typeof permits !== "number" || !Number.isInteger(permits) || permits < 1 || permits > limit) {
    return `permits ${String(permits)} is not a whole number from 1 to the limit (${limit})`
  }
  return undefined
}

/**
 * What is wrong with `data` a semaphore holder stores with its permits, or `undefined`: `undefined` (no data) or a
 * well-formed string of at most `maxDataBytes`.
 *
 * @since 1.0.0
 * @category validation
 */
export const dataProblem = (data: unknown): string | undefined => {
  if (data === undefined) return undefined
  if (typeof data !== "string") return `data must be a string (encode it first, e.g. with Schema); got ${typeof data}`
  if (!Utf8.isWellFormed(data)) return "data is not well-formed Unicode (it holds a lone surrogate)"
  if (!Utf8.fits(data, maxDataBytes)) {
    return `data is ${Utf8.byteLength(data)} UTF-8 bytes, over a semaphore holder's limit of ${maxDataBytes} (one ` +
      `item keeps the data of every holder): store a reference to the payload instead`
  }
  return undefined
}
