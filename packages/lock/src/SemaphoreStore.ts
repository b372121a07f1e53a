/**
 * The semaphore half of the store contract: the requests, results and operations with which a `LockStore` keeps
 * semaphores. A semaphore `name` allows at most `limit` permits held at once across all processes; each acquisition
 * takes `permits` of them and gets a fence that strictly increases per name. A store keeps one record per semaphore,
 * so that every decision is one conditional write, and keeps semaphores apart from locks: a lock and a semaphore of
 * the same name are different records.
 *
 * @since 1.0.0
 */
import * as SemaphoreChecks from "@leasehold/core/store/SemaphoreChecks"
import type * as SemaphoreProtocol from "@leasehold/core/store/SemaphoreProtocol"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { LockStoreError } from "./LockError.js"
import type { ReleaseResult, RenewResult } from "./LockStore.js"
import type { SemaphoreRecord } from "./SemaphoreRecord.js"

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
export type PermitTakeover = SemaphoreProtocol.PermitTakeover

/**
 * A holder the acquirer judged over, from its last view of the record, to remove in the acquiring write.
 *
 * @since 1.0.0
 * @category models
 */
export type ExpiredPermit = SemaphoreProtocol.ExpiredPermit

/**
 * One attempt to take `permits` of a semaphore's `limit`.
 *
 * @since 1.0.0
 * @category models
 */
export type AcquirePermitsRequest = SemaphoreProtocol.AcquirePermitsRequest

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
export type AcquirePermitsResult = SemaphoreProtocol.AcquirePermitsResult

/**
 * A heartbeat of one holder's permits, conditional on its owner and fence.
 *
 * @since 1.0.0
 * @category models
 */
export type RenewPermitsRequest = SemaphoreProtocol.RenewPermitsRequest

/**
 * Giving permits back, conditional on the owner, the permits and, when known, the fence (unknown only when cleaning
 * up after an acquire whose answer never arrived; the owner alone identifies the acquisition).
 *
 * @since 1.0.0
 * @category models
 */
export type ReleasePermitsRequest = SemaphoreProtocol.ReleasePermitsRequest

/**
 * A waiter's claim to take `permits` of the semaphore next.
 *
 * @since 1.0.0
 * @category models
 */
export type ReservePermitsRequest = SemaphoreProtocol.ReservePermitsRequest

/**
 * `Reserved` with the record as reserved, or `NotReserved` with the record as it is.
 *
 * @since 1.0.0
 * @category models
 */
export type ReservePermitsResult = SemaphoreProtocol.ReservePermitsResult

/**
 * The semaphore operations of a store (a `LockStore` has them). Each is one round trip; time is read from the calling
 * fiber's `Clock` as a request starts. Every operation first checks its request (see `acquireProblem`, the name as
 * `LockStore.semaphoreNameProblem` judges it) and refuses a bad one with a non-retryable `LockStoreError`, writing
 * nothing.
 *
 * @since 1.0.0
 * @category models
 */
export interface SemaphoreOperations {
  /**
   * With `create`: creates the record, with the caller as its only holder and `fence` from the clock (now + 1, as a
   * new lock's), if there is none. Otherwise: adds the caller as a holder of `permits` if the record exists with this
   * `limit`, the caller is not a holder yet, and its permits fit once the `expired` holders are removed (`used -
   * their permits + permits <= limit`); removes them in the same write if each is still there with its permits and
   * over under `takeover` (`leaseUntil < now - maxClockSkewMs` on the caller's clock, or still at the seen `version`),
   * and no one else's reservation keeps the caller out (`SemaphoreRecord.isKeptOutAt`; with `reserved`, only if the
   * reservation is the caller's, and the write clears it). The caller's fence is the record's, plus one. Any failed condition changes nothing: `LimitMismatch` if the limit
   * differs, else `Conflict` with the record. A retried request whose first attempt applied answers `Acquired`. As
   * for a lock's acquire, a write whose outcome the store does not know is reported (`LockStoreError`,
   * `mayHaveApplied`), not retried behind the caller's back.
   */
  readonly tryAcquirePermits: (
    request: AcquirePermitsRequest
  ) => Effect.Effect<AcquirePermitsResult, LockStoreError>
  /**
   * Sets the holder's `leaseUntil` to now + lease, its `sequence` to the request's, and changes its `version` if its
   * owner holds permits with this fence and the request's `sequence` is above the holder's; idempotent. A holder with a
   * `sequence` as high answers `Renewed` as it is (this renew, or a newer one, applied). `Lost` (with no `current`: the
   * permits are gone) otherwise.
   */
  readonly renewPermits: (request: RenewPermitsRequest) => Effect.Effect<RenewResult, LockStoreError>
  /**
   * Removes the holder and frees its permits if its owner holds exactly `permits` (and, when given, with this fence).
   * Keeps the record and its fence. `NotHeld` (with no `current`) otherwise.
   */
  readonly releasePermits: (request: ReleasePermitsRequest) => Effect.Effect<ReleaseResult, LockStoreError>
  /**
   * Names the caller the next to take `permits`, for `reserveMs` from now on the caller's clock, keeping others out
   * from `graceMs` on (`SemaphoreRecord.PermitReservation`), if the record exists with this `limit`, the caller holds
   * none of it, and no one else's reservation is live (none, the caller's, or `reservedUntil < now`) or the live one's
   * reserver began to wait later (`reservedSince > waitingSince`). Holders, fence and versions stay as they are.
   * `NotReserved` with the record otherwise.
   */
  readonly reservePermits: (request: ReservePermitsRequest) => Effect.Effect<ReservePermitsResult, LockStoreError>
  /** One semaphore's record, if it has ever been acquired; holders whose leases are over included. */
  readonly inspectSemaphore: (name: string) => Effect.Effect<Option.Option<SemaphoreRecord>, LockStoreError>
}

/**
 * The longest semaphore name a store takes, in UTF-8 bytes, from its `maxNameBytes`: one byte less, since a
 * semaphore's key is marked apart from every lock's with one more byte. As for a lock, a name within it may still
 * take more as a key (`LockStore.semaphoreNameProblem` judges a given name).
 *
 * @since 1.0.0
 * @category constants
 */
export const maxNameBytes = (store: { readonly maxNameBytes: number }): number =>
  SemaphoreChecks.maxNameBytes(store.maxNameBytes)

/**
 * What is wrong with an acquire request, its name aside, or `undefined`: an owner id (1 to
 * `SemaphoreRecord.maxOwnerBytes`, well-formed), the holder as a lock's (`LockRecord.payloadProblem`), `limit` and
 * `permits` (`SemaphoreRecord.permitsProblem`), a lease of a whole number of ms over 0, data of at most
 * `SemaphoreRecord.maxDataBytes`, a skew bound of 0 or more, and `expired` holders that could be there: distinct
 * owners other than the caller's, each with permits from 1 to `limit`, a whole version, and no more permits in all
 * than `limit`. Stores refuse such a request with a non-retryable `LockStoreError` carrying this message.
 *
 * @since 1.0.0
 * @category validation
 */
export const acquireProblem: (request: AcquirePermitsRequest) => string | undefined = SemaphoreChecks.acquireProblem

/**
 * What is wrong with a renew request, its name aside, or `undefined`: an owner id as an acquire's, a whole fence
 * and a lease of a whole number of ms over 0.
 *
 * @since 1.0.0
 * @category validation
 */
export const renewProblem: (request: RenewPermitsRequest) => string | undefined = SemaphoreChecks.renewProblem

/**
 * What is wrong with a release request, its name aside, or `undefined`: an owner id as an acquire's, a whole fence
 * or none, and permits from 1 to `SemaphoreRecord.maxLimit`.
 *
 * @since 1.0.0
 * @category validation
 */
export const releaseProblem: (request: ReleasePermitsRequest) => string | undefined = SemaphoreChecks.releaseProblem

/**
 * What is wrong with a reserve request, its name aside, or `undefined`: owner, limit and permits as an acquire's, and
 * finite times.
 *
 * @since 1.0.0
 * @category validation
 */
export const reserveProblem: (request: ReservePermitsRequest) => string | undefined = SemaphoreChecks.reserveProblem
