/**
 * A watcher of a leader election, who only reads: the last record read judged by the clock, and what the watcher
 * waits for next. The judgement is "absolute" (the record's `leaseUntil` on the watcher's wall clock) or "observed"
 * (the record unchanged for its `leaseMs` on the watcher's monotonic clock); a leader under a lease session is judged
 * by its session's lease (`underSession`). Times are ms: `now` and `unchangedSince` monotonic, `wallNow` on the wall
 * clock.
 *
 * @since 1.0.0
 */
import type { LockRecord } from "../record/LockRecord.js"

/**
 * The leader a record names, as a watcher reports it.
 *
 * @since 1.0.0
 * @category models
 */
export interface Leader {
  /** The leader's readable name (its `holder` option). */
  readonly holder: string
  /** Its term's owner id: a new term has a new one. */
  readonly owner: string
  /** Its term's fencing token. */
  readonly fence: number
  /** When its term began: epoch ms on the leader's clock (the record's `acquiredAt`). */
  readonly since: number
  /** What the leader stored with the lock (the `data` option), e.g. the address followers forward requests to. */
  readonly data: string | undefined
}

/**
 * Whether two reads show the record in the same state (same owner, fence and version), or both no record: the time a
 * record has stayed unchanged counts from the read that first showed its state.
 *
 * @since 1.0.0
 * @category predicates
 */
export const sameState = (a: LockRecord | undefined, b: LockRecord | undefined): boolean =>
  a === undefined || b === undefined
    ? a === b
    : a.owner === b.owner && a.fence === b.fence && a.version === b.version

/**
 * Since when the record read at `now` has stayed unchanged, given the last one read and since when that had.
 *
 * @since 1.0.0
 * @category constructors
 */
export const unchangedSince = (
  last: LockRecord | undefined,
  read: LockRecord | undefined,
  since: number,
  now: number
): number => sameState(last, read) ? since : now

/**
 * The record a watcher judges for a leader held under the lease session `id` (see `LeaseSession`), given `session`,
 * that session's record as read right after: the leader's record with its session's lease (`leaseUntil`, `leaseMs`
 * and `version`, the fields a renew of the session changes), or, when the session's record is gone or no longer held
 * by the session, with a lease that has run out: the session ended, and the leader with it.
 *
 * @since 1.0.0
 * @category constructors
 */
export const underSession = (record: LockRecord, session: LockRecord | undefined, id: string): LockRecord =>
  session !== undefined && session.owner === id
    ? { ...record, leaseUntil: session.leaseUntil, leaseMs: session.leaseMs, version: session.version }
    : { ...record, leaseUntil: 0, leaseMs: 0 }

/**
 * How long (ms) the leader the last record names has left as far as the watcher can tell, or `undefined` when it
 * names none or its lease has run out: "absolute", until `leaseUntil` on the watcher's wall clock (`wallNow`), which
 * is `maxClockSkew` before anyone may take over; "observed", until the record has stayed unchanged for its `leaseMs`
 * on the watcher's monotonic clock (`now`), the takeover time of an observed-mode follower that watched as long.
 *
 * @since 1.0.0
 * @category constructors
 */
export const leaseLeft = (
  record: LockRecord | undefined,
  takeover: "absolute" | "observed",
  unchangedSince: number,
  wallNow: number,
  now: number
): number | undefined => {
  if (record === undefined || record.owner === undefined) return undefined
  const left = takeover === "absolute" ? record.leaseUntil - wallNow : unchangedSince + record.leaseMs - now
  return left > 0 ? left : undefined
}

/**
 * The leader the last record names, if its lease has not run out as far as the watcher can tell (see `leaseLeft`).
 *
 * @since 1.0.0
 * @category constructors
 */
export const leaderOf = (
  record: LockRecord | undefined,
  takeover: "absolute" | "observed",
  unchangedSince: number,
  wallNow: number,
  now: number
): Leader | undefined => {
  if (record === undefined || record.owner === undefined) return undefined
  if (leaseLeft(record, takeover, unchangedSince, wallNow, now) === undefined) return undefined
  return {
    holder: record.holder ?? "",
    owner: record.owner,
    fence: record.fence,
    since: record.acquiredAt ?? record.leaseUntil - record.leaseMs,
    data: record.data
  }
}

/**
 * Whether two answers of the watcher are the same: both none, or the same term (owner and fence).
 *
 * @since 1.0.0
 * @category predicates
 */
export const sameLeader = (a: Leader | undefined, b: Leader | undefined): boolean =>
  a === undefined || b === undefined ? a === undefined && b === undefined : a.owner === b.owner && a.fence === b.fence

/**
 * What the watcher waits for next, with no read in flight, `leftMs` of the leader's lease (see `leaseLeft`) and
 * `untilReadMs` to the next read:
 *
 * - `Read`: the next read is due.
 * - `Judge`: the leader's lease runs out before the next read: sleep `sleepMs`, then judge the record again.
 * - `Sleep`: sleep `sleepMs` until the read falls due.
 *
 * @since 1.0.0
 * @category models
 */
export type Wait =
  | { readonly _tag: "Read" }
  | { readonly _tag: "Judge"; readonly sleepMs: number }
  | { readonly _tag: "Sleep"; readonly sleepMs: number }

/**
 * @since 1.0.0
 * @category constructors
 */
export const wait = (leftMs: number | undefined, untilReadMs: number): Wait => {
  if (untilReadMs <= 0) return { _tag: "Read" }
  if (leftMs !== undefined && leftMs < untilReadMs) return { _tag: "Judge", sleepMs: leftMs }
  return { _tag: "Sleep", sleepMs: untilReadMs }
}

/**
 * What the watcher does next, decided from one reading of its clocks:
 *
 * - `Report`: the answer now differs from the one last reported (or is the first, once a read has ended): report it
 *   at once, even with a read in flight. A leader whose lease ran out between two readings of the clock turns into
 *   none then, not when a slow read answers.
 * - `Await`: a read is in flight: wait for its answer, at most `boundMs` (the leader's lease left), or for as long as
 *   it takes when no leader is reported, since nothing but an answer can change that.
 * - otherwise what `wait` says.
 *
 * @since 1.0.0
 * @category models
 */
export type Step =
  | { readonly _tag: "Report" }
  | { readonly _tag: "Await"; readonly boundMs: number | undefined }
  | Wait

/**
 * @since 1.0.0
 * @category constructors
 */
export const step = (input: {
  /** Whether the answer differs from the last reported, or is the first once a read has ended. */
  readonly changed: boolean
  /** The leader's lease left (see `leaseLeft`). */
  readonly leftMs: number | undefined
  readonly readInFlight: boolean
  readonly untilReadMs: number
}): Step => {
  if (input.changed) return { _tag: "Report" }
  if (input.readInFlight) return { _tag: "Await", boundMs: input.leftMs }
  return wait(input.leftMs, input.untilReadMs)
}
