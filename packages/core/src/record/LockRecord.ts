/**
 * The one record a store keeps per lock name.
 *
 * @since 1.0.0
 */
import * as Utf8 from "./Utf8.js"

/**
 * A lock's stored state. A released lock keeps its record (with no owner) so that its fence stays monotonic.
 *
 * @since 1.0.0
 * @category models
 */
export interface LockRecord {
  /** The lock name as the user gave it (without any store prefix). */
  readonly name: string
  /** Random per acquisition (128 bits, hex); `undefined` when the lock is free. */
  readonly owner: string | undefined
  /** A readable name for the holding process, for people; `undefined` when free. */
  readonly holder: string | undefined
  /** Epoch ms: the holder's clock when its last acquire or renew started, plus the lease. 0 when free. */
  readonly leaseUntil: number
  /** The lease duration in ms, for observers that do not trust wall clocks (observed takeover). */
  readonly leaseMs: number
  /** Fencing token: strictly increasing per name across holders, processes and releases. */
  readonly fence: number
  /**
   * Changed by every write to the record (acquire, renew, release), whatever any clock says: an observer that sees
   * the same owner, fence and version a full lease apart knows that nobody renewed in between.
   */
  readonly version: number
  /**
   * The write sequence of the current lease: the `sequence` of the last renew applied to it since it was acquired (or
   * resumed), 0 before the first. A store applies a renew only with a higher one, so a renew that the network
   * delivers after a newer one changes nothing.
   */
  readonly sequence: number
  /** Epoch ms when the current owner acquired the lock; `undefined` when free. */
  readonly acquiredAt: number | undefined
  /** Optional payload the holder stored with the lock, already encoded. */
  readonly data: string | undefined
  /**
   * The `owner` id of the waiting acquisition that reserved the lock to be next (see `LockStore.reserve`), or
   * `undefined` when nobody did. A reservation outlives the holder's release, so the reserver gets in next; the
   * acquiring write clears it.
   */
  readonly reservedBy: string | undefined
  /**
   * Epoch ms on the reserver's clock when its reservation lapses; 0 when there is none. From `reservedFrom` until then
   * only the reserver may acquire; from then on anyone may, as if there were no reservation.
   */
  readonly reservedUntil: number
  /**
   * Epoch ms on the reserver's clock from which its reservation keeps others out; 0 when there is none, and on rows
   * whose reservation was written without one (it keeps others out at once). Before it, whoever asks may still take
   * a free lock: the current holder's turn goes on for a bounded time, and the reserver is next.
   */
  readonly reservedFrom: number
  /**
   * Epoch ms on the reserver's clock when it began to wait; 0 when there is no reservation. A waiter that began
   * earlier may take the reservation over, so the longest waiter is the next holder.
   */
  readonly reservedSince: number
  /**
   * The id of the lease session the lock is held under (see `LeaseSession`), or `undefined`: held on a lease of its
   * own, or free. A lock under a session is not renewed by itself: the session's record is, and its own lease fields
   * stay at `LeaseSession.heldUntil`, so that a process that knows nothing of sessions never takes it over.
   */
  readonly session?: string | undefined
}

/**
 * Whether some owner holds the record (whether or not its lease has run out).
 *
 * @since 1.0.0
 * @category predicates
 */
export const isHeld = (record: LockRecord): boolean => record.owner !== undefined

/**
 * Whether a held record's lease may be taken over at `now` (epoch ms) when clocks are trusted within `maxClockSkewMs`.
 * A free record is always available.
 *
 * @since 1.0.0
 * @category predicates
 */
export const isAvailableAt = (record: LockRecord, now: number, maxClockSkewMs: number): boolean =>
  record.owner === undefined || record.leaseUntil + maxClockSkewMs < now

/**
 * Whether the record carries a reservation by someone other than `owner` that has not lapsed at `now` (epoch ms, the
 * caller's clock): such a reservation keeps `owner` from reserving the lock, unless `owner` began to wait earlier.
 *
 * @since 1.0.0
 * @category predicates
 */
export const isReservedForOtherAt = (record: LockRecord, owner: string, now: number): boolean =>
  record.reservedBy !== undefined && record.reservedBy !== owner && record.reservedUntil >= now

/**
 * Whether someone else's reservation keeps `owner` from acquiring the record at `now` (epoch ms, the caller's clock):
 * it is live (`isReservedForOtherAt`) and has begun to keep others out (`reservedFrom`).
 *
 * @since 1.0.0
 * @category predicates
 */
export const isKeptOutAt = (record: LockRecord, owner: string, now: number): boolean =>
  isReservedForOtherAt(record, owner, now) && record.reservedFrom <= now

/**
 * Whether `owner`, waiting since `waitingSince` (epoch ms, its clock), may reserve the record at `now` (held or free):
 * no one else's reservation is live, or the live one's reserver began to wait later.
 *
 * @since 1.0.0
 * @category predicates
 */
export const isReservableAt = (record: LockRecord, owner: string, waitingSince: number, now: number): boolean =>
  !isReservedForOtherAt(record, owner, now) || record.reservedSince > waitingSince

/**
 * The most `data` a lock may carry, in UTF-8 bytes: DynamoDB's 400 KB item limit, less room for the longest key, the
 * holder and the lease fields. Every store refuses more, so that what works in tests works in production.
 *
 * @since 1.0.0
 * @category constants
 */
export const maxDataBytes = 392 * 1024

/**
 * The longest readable holder name, in UTF-8 bytes.
 *
 * @since 1.0.0
 * @category constants
 */
export const maxHolderBytes = 1024

/**
 * What is wrong with what a holder stores with a lock, or `undefined`: `holder` must be a string of at most
 * `maxHolderBytes`, `data` (if any) one of at most `maxDataBytes`, both well-formed Unicode (DynamoDB would store a
 * lone surrogate as U+FFFD, so what is read back would not be what was written). `Lock` reports it as a
 * `LockConfigError`, a store as a non-retryable `LockStoreError`.
 *
 * @since 1.0.0
 * @category validation
 */
export const payloadProblem = (payload: {
  readonly holder: unknown
  readonly data: unknown
}): { readonly field: "holder" | "data"; readonly message: string } | undefined => {
  const { data, holder } = payload
  if (typeof holder !== "string") return { field: "holder", message: `holder must be a string; got ${typeof holder}` }
  if (!Utf8.isWellFormed(holder)) {
    return { field: "holder", message: "holder is not well-formed Unicode (it holds a lone surrogate)" }
  }
  if (!Utf8.fits(holder, maxHolderBytes)) {
    return {
      field: "holder",
      message: `holder is ${Utf8.byteLength(holder)} UTF-8 bytes, over the limit of ${maxHolderBytes}: use a ` +
        `shorter readable name`
    }
  }
  const problem = dataProblem(data)
  return problem === undefined ? undefined : { field: "data", message: problem }
}

/**
 * What is wrong with `data` a holder stores with a lock (at acquire, or in a renew's `setData`), or `undefined`:
 * `undefined` (no data) or a well-formed string of at most `maxDataBytes`. The data half of `payloadProblem`.
 *
 * @since 1.0.0
 * @category validation
 */
export const dataProblem = (data: unknown): string | undefined => {
  if (data === undefined) return undefined
  if (typeof data !== "string") return `data must be a string (encode it first, e.g. with Schema); got ${typeof data}`
  if (!Utf8.isWellFormed(data)) return "data is not well-formed Unicode (it holds a lone surrogate)"
  if (!Utf8.fits(data, maxDataBytes)) {
    return `data is ${Utf8.byteLength(data)} UTF-8 bytes, over the limit of ${maxDataBytes} (392 KiB, what a ` +
      `DynamoDB item holds beside the key and the lease): store a reference to the payload instead`
  }
  return undefined
}

/**
 * What is wrong with a renew's `sequence`, or `undefined`: absent, or a whole number of at least 1. Stores refuse
 * anything else with a non-retryable `LockStoreError` carrying this message, writing nothing.
 *
 * @since 1.0.0
 * @category validation
 */
export const sequenceProblem = (sequence: unknown): string | undefined =>
  sequence === undefined || (typeof sequence === "number" && Number.isSafeInteger(sequence) && sequence >= 1)
    ? undefined
    : `renew sequence ${String(sequence)} is not a whole number of at least 1`

/**
 * Whether a lease whose last applied renew had `sequence` (`LockRecord.sequence`, or a semaphore holder's) has had this
 * renew, or a newer one of the same lease, applied already: then the renew changes nothing and answers `Renewed` with
 * the record as it is. A renew that moves the owner (a hand-off's resume) starts a new count, and one without a
 * sequence is not ordered.
 *
 * @since 1.0.0
 * @category predicates
 */
export const isRenewSuperseded = (
  sequence: number,
  request: { readonly sequence?: number | undefined; readonly newOwner?: string | undefined }
): boolean => request.newOwner === undefined && request.sequence !== undefined && sequence >= request.sequence
