/**
 * The clock-skew guard on takeovers by the wall clock (absolute mode): a lock's expired lease, or a semaphore's
 * expired holders, are taken over only while this host's clock provably agrees with DynamoDB's within half the bound,
 * by an estimate that still describes the clock (the wall clock has not stepped since it was taken). Without such an
 * estimate (a fresh process, a stale or a too skewed one), the store first asks without taking anything over; the
 * answer carries a `Date` header to measure with, and the takeover follows only when that measurement allows it.
 *
 * The shell reads the clocks and sends the writes; these are the decisions between them, in the order it asks.
 *
 * @since 1.0.0
 */
import type { LockRecord } from "../record/LockRecord.js"
import type { PermitHolder, SemaphoreRecord } from "../record/SemaphoreRecord.js"
import { holderOf, isExpiredAt } from "../record/SemaphoreRecord.js"
import type { ExpiredPermit } from "../store/SemaphoreProtocol.js"
import * as ClockSkew from "./ClockSkew.js"

/**
 * Whether the latest estimate allows a takeover without measuring again: there is one, it is within half the bound,
 * and the wall clock has not stepped since. `monotonicNow` is read only when the first two hold.
 *
 * @since 1.0.0
 * @category decisions
 */
export const trusts = (
  estimate: ClockSkew.Estimate | undefined,
  maxClockSkewMs: number,
  wallNow: number,
  monotonicNow: () => number
): boolean =>
  estimate !== undefined && !ClockSkew.tooSkewed(estimate, maxClockSkewMs) &&
  !ClockSkew.isStale(estimate, wallNow, monotonicNow())

/**
 * After the measuring attempt: take over, or refuse because the estimate is stale (the wall clock moved `driftMs`
 * against the monotonic clock and no fresh measurement came back) or the clocks are too far apart.
 *
 * @since 1.0.0
 * @category models
 */
export type Verdict =
  | { readonly _tag: "TakeOver" }
  | { readonly _tag: "Stale"; readonly estimate: ClockSkew.Estimate; readonly driftMs: number }
  | { readonly _tag: "TooSkewed"; readonly estimate: ClockSkew.Estimate; readonly maxClockSkewMs: number }

const takeOver: Verdict = { _tag: "TakeOver" }

/**
 * The verdict on an estimate measured by the attempt that took nothing over, at the wall and monotonic time now.
 * Without an estimate the server sends no `Date` header: there is nothing to guard with, so the takeover goes ahead.
 *
 * @since 1.0.0
 * @category decisions
 */
export const judge = (
  estimate: ClockSkew.Estimate | undefined,
  maxClockSkewMs: number,
  wallNow: () => number,
  monotonicNow: () => number
): Verdict => {
  if (estimate === undefined) return takeOver
  const wall = wallNow()
  const monotonic = monotonicNow()
  if (ClockSkew.isStale(estimate, wall, monotonic)) {
    return { _tag: "Stale", estimate, driftMs: ClockSkew.drift(estimate, wall, monotonic) }
  }
  if (ClockSkew.tooSkewed(estimate, maxClockSkewMs)) return { _tag: "TooSkewed", estimate, maxClockSkewMs }
  return takeOver
}

/**
 * Whether a lock's conflict calls for a takeover: only a held lease past its time (a free lock that conflicted is
 * someone else's reservation).
 *
 * @since 1.0.0
 * @category decisions
 */
export const isExpiredLease = (holder: LockRecord | undefined, now: number, maxClockSkewMs: number): boolean =>
  holder?.owner !== undefined && holder.leaseUntil + maxClockSkewMs < now

/**
 * Whether each holder to remove is in `current` with its permits and over at `now` under the skew bound.
 *
 * @since 1.0.0
 * @category decisions
 */
export const allOver = (
  current: SemaphoreRecord,
  expired: ReadonlyArray<ExpiredPermit>,
  now: number,
  maxClockSkewMs: number
): boolean =>
  expired.every((entry) => {
    const holder: PermitHolder | undefined = holderOf(current, entry.owner)
    return holder !== undefined && holder.permits === entry.permits && isExpiredAt(holder, now, maxClockSkewMs)
  })

/** The holder a takeover was refused from, as the refusals describe it. */
const describeHolder = (name: string, holder: LockRecord) =>
  `refusing to take over lock "${name}" from ${holder.holder ?? "?"} (owner ${holder.owner}, lease ` +
  `until ${new Date(holder.leaseUntil).toISOString()}) on this process's clock`

/**
 * Why a lock's takeover of `holder` is refused.
 *
 * @since 1.0.0
 * @category messages
 */
export const lockRefusal = (refused: Exclude<Verdict, { _tag: "TakeOver" }>, name: string, holder: LockRecord) =>
  refused._tag === "TooSkewed"
    ? `${describeHolder(name, holder)}: ${ClockSkew.describe(refused.estimate)}, more than half of maxClockSkew ` +
      `(${refused.maxClockSkewMs} ms), so an expired-looking lease may still be held. Fix the clock (NTP), raise ` +
      `maxClockSkew, or use observed takeover, which trusts no wall clock`
    : `${describeHolder(name, holder)}: the wall clock moved ${
      Math.round(refused.driftMs)
    } ms against the monotonic clock since the skew against DynamoDB's clock was last measured (a clock step: ` +
      `NTP, a resumed VM), and DynamoDB's answer carried no Date header to measure it again, so an ` +
      `expired-looking lease may still be held. Check the clock (NTP), or use observed takeover, which trusts no ` +
      `wall clock`

/**
 * Why the removal of a semaphore's expired holders (`owners`) is refused.
 *
 * @since 1.0.0
 * @category messages
 */
export const semaphoreRefusal = (
  refused: Exclude<Verdict, { _tag: "TakeOver" }>,
  name: string,
  expired: ReadonlyArray<ExpiredPermit>
) => {
  const reason = refused._tag === "TooSkewed"
    ? `${ClockSkew.describe(refused.estimate)}, more than half of maxClockSkew (${refused.maxClockSkewMs} ms)`
    : `the wall clock moved ${Math.round(refused.driftMs)} ms against the monotonic clock since the skew against ` +
      `DynamoDB's clock was last measured, and DynamoDB's answer carried no Date header to measure it again`
  return `refusing to remove the expired holders of semaphore "${name}" (owners ${
    expired.map((holder) => holder.owner).join(", ")
  }) on this process's clock: ${reason}, so an expired-looking lease may still be held. Fix the clock (NTP), ` +
    `raise maxClockSkew, or use observed takeover, which trusts no wall clock`
}
