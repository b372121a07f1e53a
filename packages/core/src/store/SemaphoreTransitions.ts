/**
 * The semaphore operations of the store contract as rules over one record: given the record a semaphore has (or
 * none), the request and the time the request started on the caller's clock, the answer and the record after. As
 * `LockTransitions` for a lock: a store in one process's memory applies them as they are, DynamoDB as conditions.
 *
 * @since 1.0.0
 */
import { isRenewSuperseded, type LockRecord } from "../record/LockRecord.js"
import {
  holderOf,
  isKeptOutAt,
  isReservableAt,
  type PermitHolder,
  permitRecord,
  type SemaphoreRecord
} from "../record/SemaphoreRecord.js"
import * as LeaseSession from "../session/LeaseSession.js"
import type * as LockProtocol from "./LockProtocol.js"
import type * as SemaphoreProtocol from "./SemaphoreProtocol.js"
import * as Transition from "./Transition.js"

type AcquireResult = SemaphoreProtocol.AcquirePermitsResult

const lost: LockProtocol.RenewResult = { _tag: "Lost", current: undefined }
const notHeld: LockProtocol.ReleaseResult = { _tag: "NotHeld", current: undefined }
const released: LockProtocol.ReleaseResult = { _tag: "Released" }

/** The caller's entry: on a lease of its own from `now`, or under its session with the session's fixed lease fields. */
const newHolder = (request: SemaphoreProtocol.AcquirePermitsRequest, fence: number, now: number): PermitHolder => ({
  owner: request.owner,
  holder: request.holder,
  permits: request.permits,
  fence,
  leaseUntil: request.session === undefined ? now + request.leaseMs : LeaseSession.heldUntil,
  leaseMs: request.session === undefined ? request.leaseMs : LeaseSession.heldUntil,
  version: 1,
  sequence: 0,
  acquiredAt: now,
  data: request.data,
  ...(request.session === undefined ? {} : { session: request.session })
})

/**
 * Whether an expired entry of an acquire names a holder of `current` that is there with those permits and whose lease
 * is over at `now` under `takeover`: past its `leaseUntil` by more than the skew bound (absolute), or still at the
 * version the acquirer watched go stale (observed). An entry that names a session (judged dead by the acquirer) is
 * over while the holder is still under that session: while it names it, since only an acquire under a session names
 * one and a renew removes the name.
 *
 * @since 1.0.0
 * @category predicates
 */
export const isRemovable = (
  current: SemaphoreRecord,
  entry: SemaphoreProtocol.ExpiredPermit,
  takeover: SemaphoreProtocol.PermitTakeover,
  now: number
): boolean => {
  const holder = holderOf(current, entry.owner)
  if (holder === undefined || holder.permits !== entry.permits) return false
  if (entry.session !== undefined) return holder.session === entry.session
  return takeover._tag === "Absolute"
    ? holder.leaseUntil < now - takeover.maxClockSkewMs
    : holder.version === entry.version
}

const permitsOf = (entries: ReadonlyArray<SemaphoreProtocol.ExpiredPermit>): number =>
  entries.reduce((sum, entry) => sum + entry.permits, 0)

/** What a failed condition answers: the limit first, as DynamoDB's store decides from the record it reads back. */
const refused = (current: SemaphoreRecord, request: SemaphoreProtocol.AcquirePermitsRequest): AcquireResult =>
  current.limit === request.limit
    ? { _tag: "Conflict", current }
    : { _tag: "LimitMismatch", limit: current.limit }

const acquired = (
  semaphore: SemaphoreRecord,
  holder: PermitHolder
): Transition.Transition<AcquireResult, SemaphoreRecord> =>
  Transition.written({ _tag: "Acquired", record: permitRecord(semaphore.name, holder), semaphore }, semaphore)

/**
 * `tryAcquirePermits` at `now`. With `create`, a new record whose one holder is the caller, its fence started from the
 * clock as a lock's is; a conflict if a record exists. Without, one write adds the caller as a holder with the next
 * fence and removes the expired holders it names, if the limit is the record's, the caller holds nothing yet, every
 * named holder is removable (`isRemovable`), the permits fit, and no one else's reservation keeps the caller out
 * (`SemaphoreRecord.isKeptOutAt`); with `reserved`, only if the reservation is still the caller's, and the write
 * clears it. Else a conflict, or `LimitMismatch` when the limit differs.
 *
 * @since 1.0.0
 * @category transitions
 */
export const tryAcquirePermits = (
  current: SemaphoreRecord | undefined,
  request: SemaphoreProtocol.AcquirePermitsRequest,
  now: number
): Transition.Transition<AcquireResult, SemaphoreRecord> => {
  if (request.create) {
    if (current !== undefined) return Transition.unchanged(refused(current, request))
    const holder = newHolder(request, now + 1, now)
    const { limit, name, permits } = request
    const created: SemaphoreRecord = { name, limit, fence: holder.fence, used: permits, holders: [holder] }
    return acquired(request.readWrite === true ? { ...created, readWrite: true } : created, holder)
  }
  if (current === undefined) return Transition.unchanged({ _tag: "Conflict", current: undefined })
  const removedPermits = permitsOf(request.expired)
  if (
    current.limit !== request.limit ||
    holderOf(current, request.owner) !== undefined ||
    !request.expired.every((entry) => isRemovable(current, entry, request.takeover, now)) ||
    current.used - removedPermits + request.permits > current.limit ||
    (request.reserved === true
      ? current.reservation?.reservedBy !== request.owner
      : isKeptOutAt(current, request.owner, request.permits, now))
  ) {
    return Transition.unchanged(refused(current, request))
  }
  const removed = new Set(request.expired.map((entry) => entry.owner))
  const holder = newHolder(request, current.fence + 1, now)
  // The reserver is in: its write clears the reservation; anyone else's keeps it (the reserver is still next).
  const { reservation: _reservation, ...unreserved } = current
  return acquired({
    ...(request.reserved === true ? unreserved : current),
    fence: holder.fence,
    used: current.used - removedPermits + request.permits,
    // Fences only grow, so appending keeps the holders in the order of their fences.
    holders: [...current.holders.filter((other) => !removed.has(other.owner)), holder]
  }, holder)
}

/**
 * `renewPermits` at `now`, on the holder's owner and fence: extends its lease, changes its version, takes the request's
 * sequence and takes the holder out of any session. A renew whose sequence is not above the holder's changes nothing, as a lock's.
 *
 * @since 1.0.0
 * @category transitions
 */
export const renewPermits = (
  current: SemaphoreRecord | undefined,
  request: SemaphoreProtocol.RenewPermitsRequest,
  now: number
): Transition.Transition<LockProtocol.RenewResult, SemaphoreRecord> => {
  const holder = current === undefined ? undefined : holderOf(current, request.owner)
  if (current === undefined || holder === undefined || holder.fence !== request.fence) {
    return Transition.unchanged(lost)
  }
  if (isRenewSuperseded(holder.sequence, request)) {
    return Transition.unchanged({ _tag: "Renewed", record: permitRecord(current.name, holder) })
  }
  // A renew is of a lease of the holder's own: it takes the holder out of any session.
  const { session: _session, ...own } = holder
  const renewed: PermitHolder = {
    ...own,
    leaseUntil: now + request.leaseMs,
    leaseMs: request.leaseMs,
    version: holder.version + 1,
    sequence: request.sequence ?? holder.sequence
  }
  const holders = current.holders.map((other) => other.owner === request.owner ? renewed : other)
  const record: LockRecord = permitRecord(current.name, renewed)
  return Transition.written({ _tag: "Renewed", record }, { ...current, holders })
}

/**
 * `releasePermits`, on the holder's owner, permits and, when given, fence: removes the holder and frees its permits.
 * The record stays, with its fence: the next acquisition's fence must be higher.
 *
 * @since 1.0.0
 * @category transitions
 */
export const releasePermits = (
  current: SemaphoreRecord | undefined,
  request: SemaphoreProtocol.ReleasePermitsRequest
): Transition.Transition<LockProtocol.ReleaseResult, SemaphoreRecord> => {
  const holder = current === undefined ? undefined : holderOf(current, request.owner)
  if (
    current === undefined || holder === undefined || holder.permits !== request.permits ||
    (request.fence !== undefined && holder.fence !== request.fence)
  ) {
    return Transition.unchanged(notHeld)
  }
  const holders = current.holders.filter((other) => other.owner !== request.owner)
  return Transition.written(released, { ...current, used: current.used - holder.permits, holders })
}

/**
 * `reservePermits` at `now`: names the caller the next to take `permits` of a semaphore that has a record with this
 * limit and of which the caller holds nothing, unless someone who began to wait no later holds a live reservation
 * (`SemaphoreRecord.isReservableAt`). Holders, fence and versions stay as they are.
 *
 * @since 1.0.0
 * @category transitions
 */
export const reservePermits = (
  current: SemaphoreRecord | undefined,
  request: SemaphoreProtocol.ReservePermitsRequest,
  now: number
): Transition.Transition<SemaphoreProtocol.ReservePermitsResult, SemaphoreRecord> => {
  if (
    current === undefined || current.limit !== request.limit || holderOf(current, request.owner) !== undefined ||
    !isReservableAt(current, request.owner, request.waitingSince, now)
  ) {
    return Transition.unchanged({ _tag: "NotReserved", current })
  }
  const semaphore: SemaphoreRecord = {
    ...current,
    reservation: {
      reservedBy: request.owner,
      reservedPermits: request.permits,
      reservedUntil: now + request.reserveMs,
      reservedSince: request.waitingSince,
      reservedFrom: now + Math.min(request.graceMs, request.reserveMs)
    }
  }
  return Transition.written({ _tag: "Reserved", semaphore }, semaphore)
}
