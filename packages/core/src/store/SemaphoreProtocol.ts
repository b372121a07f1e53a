/**
 * The semaphore half of the store contract as plain data: what each semaphore operation is asked and answers.
 *
 * @since 1.0.0
 */
import type { LockRecord } from "../record/LockRecord.js"
import type { SemaphoreRecord } from "../record/SemaphoreRecord.js"

/**
 * How an acquirer may remove holders whose leases are over, as a lock's takeover (see `LockStore.Takeover`):
 *
 * - `Absolute`: clocks are trusted within `maxClockSkewMs`; a holder is over at `leaseUntil + maxClockSkewMs` on the
 *   acquirer's clock.
 * - `Observed`: no wall clock is trusted; the acquirer removes only holders it watched keep one `version` for a full
 *   `leaseMs` on its own monotonic clock.
 *
 * @since 1.0.0
 * @category models
 */
export type PermitTakeover =
  | { readonly _tag: "Absolute"; readonly maxClockSkewMs: number }
  | { readonly _tag: "Observed" }

/**
 * A holder the acquirer judged over, from its last view of the record, to remove in the acquiring write.
 *
 * @since 1.0.0
 * @category models
 */
export interface ExpiredPermit {
  readonly owner: string
  /** The holder's permits, as seen: the write frees exactly these, and fails if the holder holds another number. */
  readonly permits: number
  /** The holder's version, as seen: observed takeover removes the holder only if it still has this version. */
  readonly version: number
  /**
   * The lease session the holder was under, judged dead by the acquirer (`SessionVerdict`): the write removes the
   * holder only while it is still under that session, whatever `takeover` says of its lease fields.
   */
  readonly session?: string | undefined
}

/**
 * One attempt to take `permits` of a semaphore's `limit`.
 *
 * @since 1.0.0
 * @category models
 */
export interface AcquirePermitsRequest {
  readonly name: string
  /** Random per acquisition (at most `SemaphoreRecord.maxOwnerBytes`); identifies it in every later renew and release. */
  readonly owner: string
  /** Readable holder name for people. */
  readonly holder: string
  /** The semaphore's limit: every process must ask with the same one (else `LimitMismatch`). */
  readonly limit: number
  readonly permits: number
  readonly leaseMs: number
  /** At most `SemaphoreRecord.maxDataBytes`. */
  readonly data: string | undefined
  readonly takeover: PermitTakeover
  /**
   * The id of the lease session to hold the permits under: the entry names it, its lease fields are
   * `LeaseSession.heldUntil`, and nobody renews it but the session's record.
   */
  readonly session?: string | undefined
  /**
   * Holders to remove in the same write, to make room: distinct owners, not the caller's. The write fails, changing
   * nothing, unless each is still there with these permits and is over under `takeover`. Ignored with `create`.
   */
  readonly expired: ReadonlyArray<ExpiredPermit>
  /** The caller saw no record: the write creates it, and fails if one exists. */
  readonly create: boolean
  /**
   * The caller holds the record's reservation (`reservePermits`): the write clears it, and fails unless it is still
   * the caller's. Absent: the write keeps any reservation, and fails if someone else's keeps it out
   * (`SemaphoreRecord.isKeptOutAt`).
   */
  readonly reserved?: boolean | undefined
  /** A write that creates the record marks it a read/write lock's (`SemaphoreRecord.readWrite`). */
  readonly readWrite?: boolean | undefined
}

/**
 * The outcome of an acquire attempt.
 *
 * - `Acquired`: `record` is the caller's permits as a `LockRecord` (for what keeps a lease), `semaphore` the whole
 *   record after the write.
 * - `Conflict`: the write changed nothing; `current` is the record as it is, or `undefined` when there is none (ask
 *   again with `create`).
 * - `LimitMismatch`: the record has another `limit`, which is `limit`; processes must agree about it.
 *
 * @since 1.0.0
 * @category models
 */
export type AcquirePermitsResult =
  | { readonly _tag: "Acquired"; readonly record: LockRecord; readonly semaphore: SemaphoreRecord }
  | { readonly _tag: "Conflict"; readonly current: SemaphoreRecord | undefined }
  | { readonly _tag: "LimitMismatch"; readonly limit: number }

/**
 * A heartbeat of one holder's permits, conditional on its owner and fence.
 *
 * @since 1.0.0
 * @category models
 */
export interface RenewPermitsRequest {
  readonly name: string
  readonly owner: string
  readonly fence: number
  readonly leaseMs: number
  /**
   * The holder's write number, as a lock's renew's (`LockStore.RenewRequest`): applied only above the holder's
   * `sequence`, so a renew delivered after a newer one changes nothing. Absent: not ordered.
   */
  readonly sequence?: number | undefined
}

/**
 * Giving permits back, conditional on the owner, the permits and, when known, the fence (unknown only when cleaning
 * up after an acquire whose answer never arrived; the owner alone identifies the acquisition).
 *
 * @since 1.0.0
 * @category models
 */
export interface ReleasePermitsRequest {
  readonly name: string
  readonly owner: string
  readonly fence: number | undefined
  readonly permits: number
}

/**
 * A waiter's claim to take `permits` of the semaphore next, as a lock's (`LockProtocol.ReserveRequest`).
 *
 * @since 1.0.0
 * @category models
 */
export interface ReservePermitsRequest {
  readonly name: string
  readonly owner: string
  /** The semaphore's limit: the write fails unless it is the record's. */
  readonly limit: number
  /** The permits the caller waits for. */
  readonly permits: number
  readonly reserveMs: number
  /** Ms from the start of the request until the reservation keeps others out; at most `reserveMs`. */
  readonly graceMs: number
  /** Epoch ms on the caller's clock when the acquisition began to wait: the earliest waiter may take a reservation. */
  readonly waitingSince: number
}

/**
 * `Reserved` carries the record with the new reservation; `NotReserved` the record as it is, when the store could
 * tell (none, another limit, the caller a holder already, or someone else's live reservation that began to wait no
 * later).
 *
 * @since 1.0.0
 * @category models
 */
export type ReservePermitsResult =
  | { readonly _tag: "Reserved"; readonly semaphore: SemaphoreRecord }
  | { readonly _tag: "NotReserved"; readonly current: SemaphoreRecord | undefined }
