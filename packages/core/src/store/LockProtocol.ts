/**
 * The lock half of the store contract as plain data: what each store operation is asked and answers. A store of any
 * runtime takes these requests and gives these results; the Effect packages' `LockStore` service is one.
 *
 * @since 1.0.0
 */
import type { LockRecord } from "../record/LockRecord.js"

/**
 * How a waiting acquirer may take over a lock whose holder stopped renewing.
 *
 * - `Absolute`: clocks are trusted within `maxClockSkewMs`; a lease is over at `leaseUntil + maxClockSkewMs` on the
 *   acquirer's clock.
 * - `Observed`: no wall clock is trusted; the acquirer may take over only a record it has watched stay unchanged
 *   (same owner, fence and `version`) for a full `leaseMs` on its own monotonic clock, and passes that record as
 *   `stale`. Without `stale`, only a free lock can be taken. The version changes with every renew, so a holder whose
 *   wall clock stopped (and so writes the same `leaseUntil` again) still proves it is alive.
 *
 * @since 1.0.0
 * @category models
 */
export type Takeover =
  | { readonly _tag: "Absolute"; readonly maxClockSkewMs: number }
  | { readonly _tag: "Observed"; readonly stale: StaleObservation | undefined }

/**
 * The holder an observed-mode acquirer watched go stale.
 *
 * @since 1.0.0
 * @category models
 */
export interface StaleObservation {
  readonly owner: string
  readonly fence: number
  readonly version: number
}

/**
 * One acquire attempt.
 *
 * @since 1.0.0
 * @category models
 */
export interface AcquireRequest {
  readonly name: string
  /** Random per acquisition; identifies this holder in every later renew and release. */
  readonly owner: string
  /** Readable holder name for people. */
  readonly holder: string
  readonly leaseMs: number
  readonly data: string | undefined
  readonly takeover: Takeover
  /**
   * Whether this acquisition reserved the lock (`reserve`): its acquiring write clears the reservation. Any other
   * keeps it: it could only get in before the reservation began to keep others out, and the reserver is still next.
   */
  readonly reserved?: boolean | undefined
  /**
   * The id of the lease session to hold the lock under (`LeaseSession`): the record names it, and its lease fields are
   * `LeaseSession.heldUntil`, so that only a judgement of the session, never the lock's own lease, lets anyone take
   * it over. Absent: the lock is held on its own lease, `leaseMs` from now, and the record names no session.
   */
  readonly session?: string | undefined
  /**
   * The holder the caller judged to be held under a dead session (`SessionVerdict`): the acquire takes the lock if it
   * is free or still held under a session by exactly this owner and fence, and in no other case (`takeover` does not
   * apply). Reservations apply as to any acquire.
   */
  readonly orphan?: Orphan | undefined
}

/**
 * A lock's holder under a lease session that the caller judged dead: its owner and fence, as it read them.
 * @since 1.0.0
 * @category models
 */
export interface Orphan {
  readonly owner: string
  readonly fence: number
}

/**
 * The outcome of an acquire attempt. `Acquired` carries the new record (with the incremented fence); `Conflict`
 * carries the current holder when the store could tell.
 *
 * @since 1.0.0
 * @category models
 */
export type AcquireResult =
  | { readonly _tag: "Acquired"; readonly record: LockRecord }
  | { readonly _tag: "Conflict"; readonly current: LockRecord | undefined }

/**
 * The most locks one `tryAcquireAll` takes: DynamoDB's limit of items in one transaction.
 *
 * @since 1.0.0
 * @category constants
 */
export const maxTakenTogether = 100

/**
 * Several free locks taken in one atomic write: each request as `tryAcquire`'s, of distinct names, with no takeover
 * (`takeover` and `orphan` are not applied: only a lock that has no record, or whose record has no holder, is taken,
 * as with an observed takeover that saw nothing stale), and reservations honoured as by any acquire.
 *
 * @since 1.0.0
 * @category models
 */
export interface AcquireAllRequest {
  readonly requests: ReadonlyArray<AcquireRequest>
}

/**
 * The outcome of `tryAcquireAll`.
 *
 * - `Acquired`: every lock is the caller's; `records` are in the order of the requests.
 * - `Refused`: some lock was not free (held, or kept for someone else's reservation); nothing changed.
 * - `Unsupported`: the store can not write several items at once (dynalite has no transactions); nothing changed.
 *
 * @since 1.0.0
 * @category models
 */
export type AcquireAllResult =
  | { readonly _tag: "Acquired"; readonly records: ReadonlyArray<LockRecord> }
  | { readonly _tag: "Refused" }
  | { readonly _tag: "Unsupported" }

/**
 * A heartbeat: extend the lease, conditional on owner and fence. With `setData`, the same conditional write also
 * replaces the lock's `data`: a holder updates what it stores with the lock in one write that extends its lease.
 *
 * @since 1.0.0
 * @category models
 */
export interface RenewRequest {
  readonly name: string
  readonly owner: string
  readonly fence: number
  readonly leaseMs: number
  /**
   * The lease's write number: 1 for its first renew, one more for each renew sent after it (a retry of the same request
   * keeps it). The store applies the renew only if it is above the record's `sequence`, and then sets that to it, so a
   * renew that the network delivers after a newer one (the caller gave up on it: a timeout, an interruption) changes
   * nothing. A renew that finds its own owner and fence with a `sequence` as high already applied, or a newer write of
   * the same lease did: it answers `Renewed` with the record as it is. A renew with `newOwner` starts the new owner's
   * count at its own number, whatever the old owner's was. Absent: the renew is not ordered (for callers that never
   * give up on one).
   */
  readonly sequence?: number | undefined
  /**
   * Present: the write sets `data` to `setData.data`, or removes it when that is `undefined`. Absent: `data` is left
   * as it is, as by every heartbeat. The data is checked as an acquire's is (`LockRecord.dataProblem`): a store
   * refuses what it can not keep with a non-retryable `LockStoreError`, before writing anything.
   */
  readonly setData?: { readonly data: string | undefined } | undefined
  /**
   * Present: the same write moves the lease to this owner id, keeping the fence (a hand-off's resume): the old owner's
   * writes, and a second resume, then find the new one. A retried request whose first attempt applied answers `Lost`
   * with the new owner as `current`.
   */
  readonly newOwner?: string | undefined
  /**
   * Present: the lock is held under this lease session, and the renew keeps it there (its lease fields stay at
   * `LeaseSession.heldUntil`): a data update, or a resume into a session. Absent: the renew sets a lease of its own,
   * `leaseMs` from now, and a renew that moves the owner takes the lock out of any session.
   */
  readonly session?: string | undefined
}

/**
 * `Lost` means the record no longer has this owner and fence; `current` is whoever holds it now, `undefined` when
 * nobody does (the lock is free, or has no record): the holder's `LockLost` says "stolen" or "freed" by it.
 *
 * @since 1.0.0
 * @category models
 */
export type RenewResult =
  | { readonly _tag: "Renewed"; readonly record: LockRecord }
  | { readonly _tag: "Lost"; readonly current: LockRecord | undefined }

/**
 * Release, conditional on the owner and, when known, the fence. The fence is unknown only when cleaning up after an
 * acquire whose response never arrived; the owner is unique per acquisition, so it alone identifies the holder.
 *
 * @since 1.0.0
 * @category models
 */
export interface ReleaseRequest {
  readonly name: string
  readonly owner: string
  readonly fence: number | undefined
}

/**
 * `Released` carries, for a lock, the record as the release left it (free, with its fence and any reservation), so
 * that the process that released knows whether a reservation keeps it out when it asks again; a permit release, and
 * a store that does not answer it, leave it out. `NotHeld` carries the current record when the store could tell.
 *
 * @since 1.0.0
 * @category models
 */
export type ReleaseResult =
  | { readonly _tag: "Released"; readonly record?: LockRecord | undefined }
  | { readonly _tag: "NotHeld"; readonly current: LockRecord | undefined }

/**
 * A waiting acquisition's claim to be next: `owner` is the acquisition's own owner id (the one its acquire attempts
 * send), and the reservation lasts `reserveMs` from the start of the request, on the caller's clock. It keeps others
 * out from `graceMs` after the start of the request (`LockRecord.reservedFrom`); until then whoever asks may still
 * take a free lock.
 *
 * @since 1.0.0
 * @category models
 */
export interface ReserveRequest {
  readonly name: string
  readonly owner: string
  readonly reserveMs: number
  /** Ms from the start of the request until the reservation keeps others out; at most `reserveMs`. */
  readonly graceMs: number
  /** Epoch ms on the caller's clock when the acquisition began to wait: the earliest waiter may take a reservation. */
  readonly waitingSince: number
}

/**
 * `Reserved` carries the record with the new reservation. `NotReserved` carries the current record when the store
 * could tell: the lock is free (there is nobody to wait for), or someone else's reservation is live.
 *
 * @since 1.0.0
 * @category models
 */
export type ReserveResult =
  | { readonly _tag: "Reserved"; readonly record: LockRecord }
  | { readonly _tag: "NotReserved"; readonly current: LockRecord | undefined }

/**
 * The holder a force release is meant for: its owner and fence, as an operator saw them.
 *
 * @since 1.0.0
 * @category models
 */
export interface ForceReleaseHolder {
  readonly owner: string
  readonly fence: number
}

/**
 * A page of a listing. Pass `cursor` back to get the next page; `undefined` means there is no next page.
 *
 * @since 1.0.0
 * @category models
 */
export interface ListPage {
  readonly records: ReadonlyArray<LockRecord>
  readonly cursor: string | undefined
}

/**
 * What is wrong with a `list` page size, or `undefined` if it is one every store takes: a whole number of at least 1,
 * or `Infinity` for every record in one page. Stores refuse anything else with a non-retryable `LockStoreError`
 * carrying this message, as DynamoDB refuses such a `Limit`.
 *
 * @since 1.0.0
 * @category validation
 */
export const listLimitProblem = (limit: unknown): string | undefined => {
  if (typeof limit === "number" && (limit === Infinity || (Number.isInteger(limit) && limit >= 1))) return undefined
  const shown = typeof limit === "string" ? JSON.stringify(limit) : String(limit)
  return `list limit ${shown} is not a page size: use a whole number of 1 or more (Infinity for every record in ` +
    `one page), or none for the default of ${defaultListLimit}`
}

/**
 * The `list` page size when the caller gives none.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultListLimit = 100

/**
 * What to list: names starting with `prefix`, from `cursor`, pages of `limit` (a whole number of at least 1, or
 * `Infinity`; stores may return fewer; default 100).
 *
 * @since 1.0.0
 * @category models
 */
export interface ListRequest {
  /** Only names starting with this. */
  readonly prefix?: string | undefined
  readonly cursor?: string | undefined
  /** Page size: a whole number of at least 1, or `Infinity`; stores may return fewer. Default 100. */
  readonly limit?: number | undefined
}
