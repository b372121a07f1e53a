/**
 * The lock operations of the store contract as rules over one record: given the record a name has (or none), the
 * request and the time the request started on the caller's clock, the answer and the record after. A store that
 * keeps its records in the memory of one process applies them as they are; a store with conditional writes (DynamoDB)
 * expresses the same rules as its conditions.
 *
 * @since 1.0.0
 */
import { isKeptOutAt, isRenewSuperseded, isReservableAt, type LockRecord } from "../record/LockRecord.js"
import * as LeaseSession from "../session/LeaseSession.js"
import type * as LockProtocol from "./LockProtocol.js"
import * as Transition from "./Transition.js"

/**
 * Whether an acquire under `takeover` may take `record` at `now`: it is free, or its holder's lease is over (on the
 * caller's clock, less the skew bound, under absolute takeover; the record is still the one the caller watched go
 * stale, under observed takeover). With `orphan` (a holder the caller judged to be under a dead session), it may take
 * a free lock or that holder's, still under a session, and nothing else. The lease fields of a lock under a session
 * (`LeaseSession.heldUntil`) never let its lease be over.
 *
 * @since 1.0.0
 * @category predicates
 */
export const mayTakeOver = (
  record: LockRecord,
  takeover: LockProtocol.Takeover,
  now: number,
  orphan?: LockProtocol.Orphan | undefined
): boolean => {
  if (record.owner === undefined) return true
  if (orphan !== undefined) {
    return LeaseSession.sessionOf(record) !== undefined && record.owner === orphan.owner &&
      record.fence === orphan.fence
  }
  switch (takeover._tag) {
    case "Absolute":
      return record.leaseUntil + takeover.maxClockSkewMs < now
    case "Observed":
      return takeover.stale !== undefined &&
        takeover.stale.owner === record.owner &&
        takeover.stale.fence === record.fence &&
        takeover.stale.version === record.version
  }
}

/** No reservation: what the reserver's acquire and an operator's release leave. */
const noReservation = { reservedBy: undefined, reservedUntil: 0, reservedSince: 0, reservedFrom: 0 } as const

/** A record's reservation, as an acquire by anyone but the reserver keeps it. */
const reservationOf = (
  record: LockRecord
): Pick<LockRecord, "reservedBy" | "reservedUntil" | "reservedSince" | "reservedFrom"> => ({
  reservedBy: record.reservedBy,
  reservedUntil: record.reservedUntil,
  reservedSince: record.reservedSince,
  reservedFrom: record.reservedFrom
})

/**
 * The record an acquire at `now` writes over `current`. A name never seen starts its fence from the clock, as a
 * DynamoDB row deleted by TTL does, so that a fence never repeats across the record's lives.
 */
const acquired = (
  request: LockProtocol.AcquireRequest,
  current: LockRecord | undefined,
  now: number
): LockRecord => ({
  name: request.name,
  owner: request.owner,
  holder: request.holder,
  ...leaseFields(request, now),
  fence: (current?.fence ?? now) + 1,
  version: (current?.version ?? 0) + 1,
  sequence: 0,
  acquiredAt: now,
  data: request.data,
  ...(request.reserved === true || current === undefined ? noReservation : reservationOf(current))
})

/** A lease of its own from `now`, or the fixed fields of a lock under a session (see `LeaseSession`). */
const leaseFields = (
  request: { readonly leaseMs: number; readonly session?: string | undefined },
  now: number
): Pick<LockRecord, "leaseUntil" | "leaseMs" | "session"> =>
  request.session === undefined
    ? { leaseUntil: now + request.leaseMs, leaseMs: request.leaseMs, session: undefined }
    : { leaseUntil: LeaseSession.heldUntil, leaseMs: LeaseSession.heldUntil, session: request.session }

/** A released record keeps its fence (the next holder's must be higher) and its reservation (the reserver is next). */
const released = (record: LockRecord): LockRecord => ({
  ...record,
  owner: undefined,
  holder: undefined,
  leaseUntil: 0,
  version: record.version + 1,
  sequence: 0,
  acquiredAt: undefined,
  data: undefined,
  session: undefined
})

/** What `forceRelease` leaves: nobody holds the lock, and nobody waits to be next. */
const forceReleased = (record: LockRecord): LockRecord => ({ ...released(record), ...noReservation })

/** A record as a refusal carries it: only while someone holds it, so that a caller tells "stolen" from "freed". */
const heldOnly = (record: LockRecord | undefined): LockRecord | undefined =>
  record?.owner === undefined ? undefined : record

/**
 * Whether an acquire by `owner` under `takeover` at `now` (and judging `orphan`'s session dead, if given) would take
 * `current`: there is no record, or the caller may take it over (`mayTakeOver`) and no one else's reservation keeps it
 * out (`LockRecord.isKeptOutAt`).
 *
 * @since 1.0.0
 * @category predicates
 */
export const admits = (
  current: LockRecord | undefined,
  owner: string,
  takeover: LockProtocol.Takeover,
  now: number,
  orphan?: LockProtocol.Orphan | undefined
): boolean =>
  current === undefined || (mayTakeOver(current, takeover, now, orphan) && !isKeptOutAt(current, owner, now))

/**
 * `tryAcquire` at `now`: the lock is the caller's if the record admits it (`admits`); the write increments the fence
 * and, if the caller reserved, clears the reservation (`AcquireRequest.reserved`). Else a conflict with the record.
 *
 * @since 1.0.0
 * @category transitions
 */
export const tryAcquire = (
  current: LockRecord | undefined,
  request: LockProtocol.AcquireRequest,
  now: number
): Transition.Transition<LockProtocol.AcquireResult, LockRecord> => {
  if (current !== undefined && !admits(current, request.owner, request.takeover, now, request.orphan)) {
    return Transition.unchanged({ _tag: "Conflict", current })
  }
  const record = acquired(request, current, now)
  return Transition.written({ _tag: "Acquired", record }, record)
}

/**
 * An acquire of `tryAcquireAll`'s: the same request, taking the lock only if it is free (no takeover, no orphan).
 *
 * @since 1.0.0
 * @category constructors
 */
export const freeOnly = (request: LockProtocol.AcquireRequest): LockProtocol.AcquireRequest => {
  const { orphan: _orphan, ...rest } = request
  return { ...rest, takeover: { _tag: "Observed", stale: undefined } }
}

/**
 * `tryAcquireAll` at `now`, over `records` (by name): every lock the caller's, each as `tryAcquire` of its
 * `freeOnly` request would make it, if every one admits it; else nothing changes. The records written, in the order
 * of the requests; `undefined` when one was refused.
 *
 * @since 1.0.0
 * @category transitions
 */
export const tryAcquireAll = (
  records: ReadonlyMap<string, LockRecord>,
  request: LockProtocol.AcquireAllRequest,
  now: number
): ReadonlyArray<LockRecord> | undefined => {
  const written: Array<LockRecord> = []
  for (const one of request.requests) {
    const free = freeOnly(one)
    const current = records.get(one.name)
    if (current !== undefined && !admits(current, free.owner, free.takeover, now)) return undefined
    written.push(acquired(free, current, now))
  }
  return written
}

/**
 * `renew` at `now`, on owner and fence: extends the lease (or, with `session`, keeps the lock under that session),
 * changes the version and takes the request's sequence (and its `setData` and `newOwner`, when given). A renew whose
 * sequence is not above the record's changes nothing: it, or a newer one of the same lease, applied already, however
 * late the network delivers it. A renew that moves the owner without a session takes the lock out of any session.
 *
 * @since 1.0.0
 * @category transitions
 */
export const renew = (
  current: LockRecord | undefined,
  request: LockProtocol.RenewRequest,
  now: number
): Transition.Transition<LockProtocol.RenewResult, LockRecord> => {
  if (current === undefined || current.owner !== request.owner || current.fence !== request.fence) {
    return Transition.unchanged({ _tag: "Lost", current: heldOnly(current) })
  }
  if (isRenewSuperseded(current.sequence, request)) return Transition.unchanged({ _tag: "Renewed", record: current })
  const lease = leaseFields(request, now)
  const record: LockRecord = {
    ...current,
    ...lease,
    // A heartbeat of a lease of its own leaves the record's session id as it found it (see `LeaseSession.sessionOf`).
    session: request.session === undefined && request.newOwner === undefined ? current.session : lease.session,
    version: current.version + 1,
    // A new owner's count starts at this write's.
    sequence: request.newOwner !== undefined ? request.sequence ?? 0 : request.sequence ?? current.sequence,
    data: request.setData === undefined ? current.data : request.setData.data,
    owner: request.newOwner ?? current.owner
  }
  return Transition.written({ _tag: "Renewed", record }, record)
}

/**
 * `release`, on the owner and, when given, the fence: clears the holder, keeping the fence and the reservation.
 *
 * @since 1.0.0
 * @category transitions
 */
export const release = (
  current: LockRecord | undefined,
  request: LockProtocol.ReleaseRequest
): Transition.Transition<LockProtocol.ReleaseResult, LockRecord> => {
  if (
    current === undefined || current.owner !== request.owner ||
    (request.fence !== undefined && current.fence !== request.fence)
  ) {
    return Transition.unchanged({ _tag: "NotHeld", current: heldOnly(current) })
  }
  const record = released(current)
  return Transition.written({ _tag: "Released", record }, record)
}

/**
 * `reserve` at `now`: names the caller the next holder of a lock that has a record, unless someone who began to wait
 * no later holds a live reservation (`LockRecord.isReservableAt`).
 *
 * @since 1.0.0
 * @category transitions
 */
export const reserve = (
  current: LockRecord | undefined,
  request: LockProtocol.ReserveRequest,
  now: number
): Transition.Transition<LockProtocol.ReserveResult, LockRecord> => {
  if (current === undefined || !isReservableAt(current, request.owner, request.waitingSince, now)) {
    return Transition.unchanged({ _tag: "NotReserved", current })
  }
  // Neither the version nor the holder fields change: observed takeover watches them.
  const record: LockRecord = {
    ...current,
    reservedBy: request.owner,
    reservedUntil: now + request.reserveMs,
    reservedSince: request.waitingSince,
    reservedFrom: now + Math.min(request.graceMs, request.reserveMs)
  }
  return Transition.written({ _tag: "Reserved", record }, record)
}

/**
 * `forceRelease`: clears the holder and any reservation of a held lock (held by `holder`, when given). The answer is
 * the record as it was, or `undefined` when it frees nothing.
 *
 * @since 1.0.0
 * @category transitions
 */
export const forceRelease = (
  current: LockRecord | undefined,
  holder: LockProtocol.ForceReleaseHolder | undefined
): Transition.Transition<LockRecord | undefined, LockRecord> => {
  if (
    current === undefined || current.owner === undefined ||
    (holder !== undefined && (current.owner !== holder.owner || current.fence !== holder.fence))
  ) {
    return Transition.unchanged(undefined)
  }
  return Transition.written(current, forceReleased(current))
}
