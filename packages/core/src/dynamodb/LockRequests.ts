/**
 * The writes of a lock as DynamoDB requests (`UpdateItem`'s expressions and values, without the table and key), and
 * what a failed condition means for each: the lock operations of the store are these, one round trip each.
 *
 * @since 1.0.0
 */
import type { LockRecord } from "../record/LockRecord.js"
import { dataProblem, isRenewSuperseded, sequenceProblem } from "../record/LockRecord.js"
import * as LeaseSession from "../session/LeaseSession.js"
import type * as LockProtocol from "../store/LockProtocol.js"
import { type ItemMap, num, one, str, zero } from "./AttributeValue.js"
import * as Expressions from "./LockExpressions.js"

const v = Expressions.values

/**
 * The parts of one conditional `UpdateItem` that depend on the operation and its request.
 *
 * @since 1.0.0
 * @category models
 */
export interface Request {
  readonly UpdateExpression: string
  readonly ConditionExpression: string
  readonly ExpressionAttributeNames: Readonly<Record<string, string>>
  readonly ExpressionAttributeValues: ItemMap
}

/**
 * How an acquire may treat a held record: take only a free lock, also an expired one (absolute takeover: its lease
 * ended before `cutoff`), also the stale one the caller observed (observed takeover), or also the holder under a
 * lease session that the caller judged dead (`LockProtocol.AcquireRequest.orphan`, whichever the takeover).
 *
 * @since 1.0.0
 * @category models
 */
export type AcquireCondition =
  | { readonly _tag: "FreeOnly" }
  | { readonly _tag: "FreeOrExpired"; readonly cutoff: number }
  | { readonly _tag: "FreeOrStale"; readonly stale: LockProtocol.StaleObservation }
  | { readonly _tag: "FreeOrOrphan"; readonly orphan: LockProtocol.Orphan }

/**
 * @since 1.0.0
 * @category constructors
 */
export const freeOnly: AcquireCondition = { _tag: "FreeOnly" }

/**
 * The condition of an observed-mode acquire: free only, or free or the stale record the caller observed.
 *
 * @since 1.0.0
 * @category constructors
 */
export const observedCondition = (stale: LockProtocol.StaleObservation | undefined): AcquireCondition =>
  stale === undefined ? freeOnly : { _tag: "FreeOrStale", stale }

/** The values of an acquire's request: the new lease, and what its condition compares the held record with. */
const acquireValues = (
  request: LockProtocol.AcquireRequest,
  now: number,
  condition: AcquireCondition,
  ttlRetentionMs: number
): ItemMap => {
  const underSession = request.session !== undefined
  const leaseUntil = underSession ? LeaseSession.heldUntil : now + request.leaseMs
  const values: ItemMap = {
    [v.owner]: str(request.owner),
    [v.holder]: str(request.holder),
    [v.leaseUntil]: num(leaseUntil),
    [v.leaseMs]: num(underSession ? LeaseSession.heldUntil : request.leaseMs),
    [v.now]: num(now),
    [v.ttl]: num(Expressions.ttlAt(leaseUntil, ttlRetentionMs)),
    [v.zero]: zero,
    [v.one]: one
  }
  if (request.data !== undefined) values[v.data] = str(request.data)
  if (request.session !== undefined) values[v.session] = str(request.session)
  switch (condition._tag) {
    case "FreeOnly":
      break
    case "FreeOrExpired":
      values[v.cutoff] = num(condition.cutoff)
      break
    case "FreeOrStale":
      values[v.staleOwner] = str(condition.stale.owner)
      values[v.staleFence] = num(condition.stale.fence)
      values[v.staleVersion] = num(condition.stale.version)
      break
    case "FreeOrOrphan":
      values[v.orphanOwner] = str(condition.orphan.owner)
      values[v.orphanFence] = num(condition.orphan.fence)
      values[v.heldUntil] = num(LeaseSession.heldUntil)
      break
  }
  return values
}

const conditionExpressions: Record<AcquireCondition["_tag"], string> = {
  FreeOnly: Expressions.freeOnlyExpression,
  FreeOrExpired: Expressions.freeOrExpiredExpression,
  FreeOrStale: Expressions.freeOrStaleExpression,
  FreeOrOrphan: Expressions.freeOrOrphanExpression
}

/**
 * An acquire's write at `now` on the writer's clock.
 *
 * @since 1.0.0
 * @category requests
 */
export const acquire = (
  request: LockProtocol.AcquireRequest,
  now: number,
  condition: AcquireCondition,
  ttlRetentionMs: number
): Request => ({
  UpdateExpression: Expressions.acquireUpdate(
    request.data !== undefined,
    request.reserved === true,
    request.session !== undefined
  ),
  ConditionExpression: conditionExpressions[condition._tag],
  ExpressionAttributeNames: Expressions.acquireNames(request.reserved === true),
  ExpressionAttributeValues: acquireValues(request, now, condition, ttlRetentionMs)
})

/**
 * A record that is not held reads as no holder.
 *
 * @since 1.0.0
 * @category conflicts
 */
export const heldOrUndefined = (record: LockRecord | undefined): LockRecord | undefined =>
  record?.owner === undefined ? undefined : record

/**
 * A record that is neither held nor reserved reads as no holder: a reserved free record is what kept an acquire out.
 *
 * @since 1.0.0
 * @category conflicts
 */
export const heldOrReserved = (record: LockRecord | undefined): LockRecord | undefined =>
  record?.owner === undefined && record?.reservedBy === undefined ? undefined : record

/**
 * An acquire's result, and the holder that made it a conflict (for the clock-skew guard).
 *
 * @since 1.0.0
 * @category models
 */
export interface Acquisition {
  readonly result: LockProtocol.AcquireResult
  readonly holder: LockRecord | undefined
}

/**
 * What a failed acquire condition means, with the record that failed it, after `attempts` attempts of the request.
 *
 * @since 1.0.0
 * @category conflicts
 */
export const acquireConflict = (owner: string, attempts: number, current: LockRecord | undefined): Acquisition => {
  // Our own owner in the record means an earlier attempt of this very call was applied and its response lost (the
  // owner is random per acquisition): that is an acquisition, not a conflict.
  if (attempts > 1 && current !== undefined && current.owner === owner) {
    return { result: { _tag: "Acquired", record: current }, holder: undefined }
  }
  const held = heldOrReserved(current)
  return { result: { _tag: "Conflict", current: held }, holder: held }
}

/**
 * What a renew's request carries that no store can write: an invalid write sequence or data.
 *
 * @since 1.0.0
 * @category checks
 */
export const renewProblem = (request: LockProtocol.RenewRequest): string | undefined =>
  sequenceProblem(request.sequence) ?? (request.setData === undefined ? undefined : dataProblem(request.setData.data))

/**
 * A renew's write at `now`: a heartbeat sends the plain renew; a data update the same write with `data` set or
 * removed; a resume the same write with the owner moved.
 *
 * @since 1.0.0
 * @category requests
 */
export const renew = (request: LockProtocol.RenewRequest, now: number, ttlRetentionMs: number): Request => {
  const { setData } = request
  const movesOwner = request.newOwner !== undefined
  // A resume starts the new owner's sequence at its own number; a renew is ordered when it carries one.
  const ordered = !movesOwner && request.sequence !== undefined
  const sequenced = movesOwner || ordered
  // Under a session the lock keeps its fixed lease fields; a resume onto a lease of its own leaves any session.
  const session: Expressions.RenewSession = request.session !== undefined ? "set" : movesOwner ? "remove" : "keep"
  const leaseUntil = request.session !== undefined ? LeaseSession.heldUntil : now + request.leaseMs
  const values: ItemMap = {
    [v.leaseUntil]: num(leaseUntil),
    [v.leaseMs]: num(request.session !== undefined ? LeaseSession.heldUntil : request.leaseMs),
    [v.ttl]: num(Expressions.ttlAt(leaseUntil, ttlRetentionMs)),
    [v.owner]: str(request.owner),
    [v.fence]: num(request.fence),
    [v.zero]: zero,
    [v.one]: one
  }
  if (setData?.data !== undefined) values[v.data] = str(setData.data)
  if (request.newOwner !== undefined) values[v.newOwner] = str(request.newOwner)
  if (sequenced) values[v.sequence] = num(request.sequence ?? 0)
  if (request.session !== undefined) values[v.session] = str(request.session)
  return {
    UpdateExpression: Expressions.renewUpdateFor(setData, movesOwner, sequenced, session),
    ConditionExpression: ordered ? Expressions.orderedRenewCondition : Expressions.renewCondition,
    ExpressionAttributeNames: Expressions.renewNames(sequenced, setData !== undefined, session !== "keep"),
    ExpressionAttributeValues: values
  }
}

/**
 * What a failed renew condition means, with the record that failed it.
 *
 * @since 1.0.0
 * @category conflicts
 */
export const renewConflict = (
  request: LockProtocol.RenewRequest,
  current: LockRecord | undefined
): LockProtocol.RenewResult =>
  // This renew (a retried request whose first attempt applied) or a newer one of the lease applied: the lease is at
  // least as long as this one would have made it.
  current !== undefined && current.owner === request.owner && current.fence === request.fence &&
    isRenewSuperseded(current.sequence, request)
    ? { _tag: "Renewed", record: current }
    : { _tag: "Lost", current: heldOrUndefined(current) }

/**
 * A release's write at `now`: the holder fields cleared, the row kept (its fence must keep increasing).
 *
 * @since 1.0.0
 * @category requests
 */
export const release = (request: LockProtocol.ReleaseRequest, now: number, ttlRetentionMs: number): Request => {
  const values: ItemMap = {
    [v.zero]: zero,
    [v.one]: one,
    [v.ttl]: num(Expressions.ttlAt(now, ttlRetentionMs)),
    [v.owner]: str(request.owner)
  }
  if (request.fence !== undefined) values[v.fence] = num(request.fence)
  return {
    UpdateExpression: Expressions.clearUpdate,
    ConditionExpression: request.fence === undefined
      ? Expressions.releaseByOwner
      : Expressions.releaseByOwnerAndFence,
    ExpressionAttributeNames: request.fence === undefined
      ? Expressions.clearNames
      : Expressions.clearNamesWithFence,
    ExpressionAttributeValues: values
  }
}

/**
 * @since 1.0.0
 * @category conflicts
 */
export const released: LockProtocol.ReleaseResult = { _tag: "Released" }

/**
 * What a failed release condition means, with the record that failed it, after `attempts` attempts of the request.
 *
 * @since 1.0.0
 * @category conflicts
 */
export const releaseConflict = (attempts: number, current: LockRecord | undefined): LockProtocol.ReleaseResult => {
  // A free record after a retried request: the earlier attempt was applied and its response lost.
  if (attempts > 1 && current !== undefined && current.owner === undefined) return released
  return { _tag: "NotHeld", current: heldOrUndefined(current) }
}

/**
 * An operator's release at `now`, of whoever holds the lock or of `holder` only; it also drops the reservation.
 *
 * @since 1.0.0
 * @category requests
 */
export const forceRelease = (
  holder: LockProtocol.ForceReleaseHolder | undefined,
  now: number,
  ttlRetentionMs: number
): Request => {
  const values: ItemMap = {
    [v.zero]: zero,
    [v.one]: one,
    [v.ttl]: num(Expressions.ttlAt(now, ttlRetentionMs))
  }
  if (holder !== undefined) {
    values[v.owner] = str(holder.owner)
    values[v.fence] = num(holder.fence)
  }
  return {
    UpdateExpression: Expressions.forceClearUpdate,
    ConditionExpression: holder === undefined
      ? Expressions.forceReleaseCondition
      : Expressions.forceReleaseOfHolderCondition,
    ExpressionAttributeNames: holder === undefined
      ? Expressions.forceClearNames
      : Expressions.forceClearNamesWithFence,
    ExpressionAttributeValues: values
  }
}

/**
 * What a failed force-release condition calls for: the answer that it removed nothing (`NotHeld`), or a read of the
 * lock's item (`ReadCurrent`) to tell what an earlier attempt of the request may have done.
 *
 * @since 1.0.0
 * @category models
 */
export type ForceReleaseConflict = { readonly _tag: "NotHeld" } | { readonly _tag: "ReadCurrent" }

const nothingRemoved = { _tag: "NotHeld" } as const

const readCurrent: ForceReleaseConflict = { _tag: "ReadCurrent" }

/**
 * A force release whose condition failed. When no earlier attempt of the request may have been applied (this was the
 * first, or those before it were refused or never sent), the lock was not held as asked: nothing was removed. After
 * one that may have been applied, the failure may be that attempt's own doing, which only the item can tell
 * (`forceReleaseRetried`).
 *
 * @since 1.0.0
 * @category conflicts
 */
export const forceReleaseConflict = (earlierMayHaveApplied: boolean): ForceReleaseConflict =>
  earlierMayHaveApplied ? readCurrent : nothingRemoved

/**
 * What a retried force release came to: it removed nothing (`NotHeld`), or whether it removed a holder can not be
 * told (`Unknown`: the lock as the retry found it, and what to tell a person).
 *
 * @since 1.0.0
 * @category models
 */
export type ForceReleaseRetried =
  | { readonly _tag: "NotHeld" }
  | { readonly _tag: "Unknown"; readonly current: LockRecord; readonly message: string }

const lockState = (record: LockRecord) =>
  record.owner === undefined
    ? `free (fence ${record.fence})`
    : `held by ${record.holder ?? "?"} (owner ${record.owner}, fence ${record.fence})`

/**
 * A force release whose retry failed its condition after an attempt that may have been applied, judged by the item
 * that failed it (`undefined`: no item). No item: no attempt can have been applied, since each needs a held record.
 * A record: the earlier attempt may have removed the holder and its answer been lost, or the holder may have gone
 * before that attempt landed (its own release, another operator's, a takeover). A force release leaves what the
 * holder's own release leaves (no holder, the same fence, a version more), so the record can not tell them apart, and
 * saying "removed" or "nothing to do" would each be a guess: the outcome is unknown.
 *
 * @since 1.0.0
 * @category conflicts
 */
export const forceReleaseRetried = (
  tableName: string,
  holder: LockProtocol.ForceReleaseHolder | undefined,
  current: LockRecord | undefined
): ForceReleaseRetried => {
  if (current === undefined) return nothingRemoved
  const target = holder === undefined ? "" : ` held by owner ${holder.owner} (fence ${holder.fence})`
  const removed = holder === undefined ? "a holder, and which," : "that holder"
  return {
    _tag: "Unknown",
    current,
    message: `force release of lock "${current.name}"${target} on table "${tableName}": an earlier attempt may ` +
      `have been applied and its answer lost, and the retry found the lock ${lockState(current)}, so whether this ` +
      `call removed ${removed} can not be told`
  }
}

/**
 * A reservation's write at `now`: the caller named as the next holder until `now + reserveMs`, keeping others out
 * from `now + graceMs`.
 *
 * @since 1.0.0
 * @category requests
 */
export const reserve = (request: LockProtocol.ReserveRequest, now: number): Request => ({
  UpdateExpression: Expressions.reserveUpdate,
  ConditionExpression: Expressions.reserveCondition,
  ExpressionAttributeNames: Expressions.reserveNames,
  ExpressionAttributeValues: {
    [v.owner]: str(request.owner),
    [v.now]: num(now),
    [v.reservedUntil]: num(now + request.reserveMs),
    [v.reservedFrom]: num(now + Math.min(request.graceMs, request.reserveMs)),
    [v.waitingSince]: num(request.waitingSince)
  }
})
