/**
 * What the answers of a semaphore's writes mean (the item after a write, or the item that failed its condition), and
 * the one thing the table's TTL forbids a semaphore lease. The expressions themselves are in `SemaphoreExpressions`.
 *
 * @since 1.0.0
 */
import { isRenewSuperseded } from "../record/LockRecord.js"
import { holderOf, permitRecord, type SemaphoreRecord } from "../record/SemaphoreRecord.js"
import type * as LockProtocol from "../store/LockProtocol.js"
import type * as SemaphoreProtocol from "../store/SemaphoreProtocol.js"

/**
 * Why a lease is too long for the table's TTL, or `undefined`. Every holder's write sets the one item's `ttl`, a
 * release to the retention past now: a lease (and the clock skew between the writers) longer than the retention could
 * let DynamoDB delete the item, and the permits of a holder still inside its lease with it.
 *
 * @since 1.0.0
 * @category checks
 */
export const outlivesTtl = (
  request: Pick<SemaphoreProtocol.AcquirePermitsRequest, "leaseMs" | "takeover">,
  ttlRetentionMs: number
): string | undefined => {
  const skewMs = request.takeover._tag === "Absolute" ? request.takeover.maxClockSkewMs : 0
  if (request.leaseMs + skewMs < ttlRetentionMs) return undefined
  return `a semaphore lease of ${request.leaseMs} ms (plus ${skewMs} ms of clock skew) must be shorter than the ` +
    `store's ttlRetention (${ttlRetentionMs} ms): another holder's release sets the item's TTL that far ahead, and ` +
    `DynamoDB could delete the item, with these permits, while their lease lasts; raise ttlRetention or shorten lease`
}

/**
 * The acquisition an item shows for `owner`, or `undefined` when the item has lost that holder (a malformed item:
 * the write that added it succeeded).
 *
 * @since 1.0.0
 * @category answers
 */
export const acquired = (
  semaphore: SemaphoreRecord,
  owner: string
): SemaphoreProtocol.AcquirePermitsResult | undefined => {
  const holder = holderOf(semaphore, owner)
  return holder === undefined
    ? undefined
    : { _tag: "Acquired", record: permitRecord(semaphore.name, holder), semaphore }
}

/**
 * What a failed acquire condition means, with the semaphore that failed it, after `attempts` attempts of the request.
 *
 * @since 1.0.0
 * @category answers
 */
export const acquireConflict = (
  request: Pick<SemaphoreProtocol.AcquirePermitsRequest, "owner" | "limit">,
  attempts: number,
  current: SemaphoreRecord
): SemaphoreProtocol.AcquirePermitsResult => {
  // Our own owner among the holders means an earlier attempt of this very call was applied and its response lost (the
  // owner is random per acquisition): that is an acquisition, not a conflict.
  const ours = attempts > 1 ? acquired(current, request.owner) : undefined
  if (ours !== undefined) return ours
  return current.limit === request.limit
    ? { _tag: "Conflict", current }
    : { _tag: "LimitMismatch", limit: current.limit }
}

/**
 * @since 1.0.0
 * @category answers
 */
export const lost: LockProtocol.RenewResult = { _tag: "Lost", current: undefined }

/**
 * The holder's permits in `semaphore` after a renew: renewed by this write, or (`superseded`: the item that failed
 * the condition) by this one or a newer, earlier.
 *
 * @since 1.0.0
 * @category answers
 */
export const renewed = (
  request: SemaphoreProtocol.RenewPermitsRequest,
  semaphore: SemaphoreRecord,
  superseded: boolean
): LockProtocol.RenewResult => {
  const holder = holderOf(semaphore, request.owner)
  if (holder === undefined || holder.fence !== request.fence) return lost
  if (superseded && !isRenewSuperseded(holder.sequence, request)) return lost
  return { _tag: "Renewed", record: permitRecord(semaphore.name, holder) }
}

/**
 * @since 1.0.0
 * @category answers
 */
export const notHeld: LockProtocol.ReleaseResult = { _tag: "NotHeld", current: undefined }

/**
 * @since 1.0.0
 * @category answers
 */
export const released: LockProtocol.ReleaseResult = { _tag: "Released" }

/**
 * A retried release whose condition failed: if the holder is gone, the earlier attempt was applied and its response
 * lost.
 *
 * @since 1.0.0
 * @category answers
 */
export const releaseRetried = (current: SemaphoreRecord | undefined, owner: string): LockProtocol.ReleaseResult =>
  current === undefined || holderOf(current, owner) === undefined ? released : notHeld

/**
 * What a failed condition of a holder's write calls for: its answer, or a read of the semaphore's item
 * (`ReadHolder`) to tell it.
 *
 * @since 1.0.0
 * @category models
 */
export type Conflict<A> = { readonly _tag: "Answer"; readonly result: A } | { readonly _tag: "ReadHolder" }

const readHolder: Conflict<never> = { _tag: "ReadHolder" }

const lostConflict: Conflict<LockProtocol.RenewResult> = { _tag: "Answer", result: lost }

const notHeldConflict: Conflict<LockProtocol.ReleaseResult> = { _tag: "Answer", result: notHeld }

/**
 * A renew whose condition failed. An unordered renew fails only when the permits are gone (released, or removed as
 * expired); an ordered one also when this renew (a retried request whose first attempt applied) or a newer one of
 * the holder applied, which the item tells (`renewRead`).
 *
 * @since 1.0.0
 * @category answers
 */
export const renewConflict = (request: SemaphoreProtocol.RenewPermitsRequest): Conflict<LockProtocol.RenewResult> =>
  request.sequence === undefined ? lostConflict : readHolder

/**
 * An ordered renew's answer from the item that failed its condition (`undefined`: no item).
 *
 * @since 1.0.0
 * @category answers
 */
export const renewRead = (
  request: SemaphoreProtocol.RenewPermitsRequest,
  current: SemaphoreRecord | undefined
): LockProtocol.RenewResult => current === undefined ? lost : renewed(request, current, true)

/**
 * A release whose condition failed after `attempts` attempts: on the first, the holder is not there; on a retry, the
 * earlier attempt may have removed it, which the item tells (`releaseRetried`).
 *
 * @since 1.0.0
 * @category answers
 */
export const releaseConflict = (attempts: number): Conflict<LockProtocol.ReleaseResult> =>
  attempts === 1 ? notHeldConflict : readHolder
