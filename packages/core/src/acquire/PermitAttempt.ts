/**
 * The decisions of a semaphore's acquire loop, one conditional write per attempt, which also removes the holders whose
 * leases are over when that makes room: what an answer means, which holders are over, whether removing them makes
 * room, and what follows a conflict (go again at once, sleep, or give up). Creating the record, removing holders and
 * a record that changed under the attempt are not waiting: they get a few immediate attempts even with no `wait`.
 * Times are ms: `now` and `sentAt` on the monotonic clock, `wallNow` on the wall clock.
 *
 * @since 1.0.0
 */
import * as LeaseDeadline from "../lease/LeaseDeadline.js"
import type { LockRecord } from "../record/LockRecord.js"
import { isKeptOutAt, type PermitHolder, permitRecord, type SemaphoreRecord } from "../record/SemaphoreRecord.js"
import * as LeaseSession from "../session/LeaseSession.js"
import type * as SessionVerdict from "../session/SessionVerdict.js"
import type * as SemaphoreProtocol from "../store/SemaphoreProtocol.js"
import * as AcquireBound from "./AcquireBound.js"
import * as AcquireOwner from "./AcquireOwner.js"

/**
 * What the loop's decisions depend on of a semaphore acquire's options.
 *
 * @since 1.0.0
 * @category models
 */
export interface AttemptOptions {
  readonly takeover: "absolute" | "observed"
  readonly maxClockSkewMs: number
  readonly leaseMs: number
  readonly safetyMarginMs: number
  /** The permits asked for. */
  readonly permits: number
  /** The semaphore's limit. */
  readonly limit: number
}

/**
 * Attempts in a row without a sleep: enough to create the record, then remove holders, then lose one race; a record
 * that keeps changing under the attempts makes the fiber wait a poll interval like any conflict.
 *
 * @since 1.0.0
 * @category constants
 */
export const maxEagerAttempts = 3

/**
 * What the attempts ask the store to take over.
 *
 * @since 1.0.0
 * @category constructors
 */
export const takeover = (options: AttemptOptions): SemaphoreProtocol.PermitTakeover =>
  options.takeover === "absolute"
    ? { _tag: "Absolute", maxClockSkewMs: options.maxClockSkewMs }
    : { _tag: "Observed" }

/**
 * A holder as an observed-mode waiter first saw it at its current version, on its monotonic clock.
 *
 * @since 1.0.0
 * @category models
 */
export interface Sighting {
  readonly version: number
  readonly seenAt: number
}

/**
 * Each other holder's version as first seen, by owner.
 *
 * @since 1.0.0
 * @category models
 */
export type Sightings = ReadonlyMap<string, Sighting>

/**
 * The sightings after seeing `record` at `now`: a holder seen at a new version is seen afresh, and the holders that are
 * gone are forgotten.
 *
 * @since 1.0.0
 * @category constructors
 */
export const observe = (sightings: Sightings, record: SemaphoreRecord, now: number): Sightings => {
  const next = new Map<string, Sighting>()
  for (const holder of record.holders) {
    const seen = next.get(holder.owner) ?? sightings.get(holder.owner)
    const current = seen === undefined || seen.version !== holder.version
      ? { version: holder.version, seenAt: now }
      : seen
    next.set(holder.owner, current)
  }
  return next
}

/**
 * How long until `holder` may be removed, in ms on our clocks: 0 or less once it may. Absolute: past its `leaseUntil`
 * + skew on our wall clock. Observed: a full lease after we first saw its current version.
 *
 * @since 1.0.0
 * @category constructors
 */
export const untilOverMs = (
  options: AttemptOptions,
  sightings: Sightings,
  holder: PermitHolder,
  wallNow: number,
  now: number
): number => {
  if (options.takeover === "absolute") return holder.leaseUntil + options.maxClockSkewMs + 1 - wallNow
  const seen = sightings.get(holder.owner)
  return seen === undefined ? holder.leaseMs : seen.seenAt + holder.leaseMs - now
}

/**
 * The lease sessions the other holders of `record` are under, each once: the sessions to judge before planning.
 *
 * @since 1.0.0
 * @category getters
 */
export const sessionsToJudge = (record: SemaphoreRecord, owner: string): ReadonlyArray<string> => {
  const sessions = new Set<string>()
  for (const holder of record.holders) {
    const session = holder.owner === owner ? undefined : LeaseSession.sessionOf(holder)
    if (session !== undefined) sessions.add(session)
  }
  return [...sessions]
}

/** How long until a holder under a session may be removed: at once when the session is dead, never unjudged. */
const untilJudgedMs = (verdict: SessionVerdict.Verdict | undefined): number =>
  verdict === undefined ? Infinity : verdict._tag === "Dead" ? 0 : verdict.untilJudgedMs

/**
 * What a conflict on a record leads to: the next attempt at once, removing `expired`; or a sleep of `sleepMs`.
 *
 * @since 1.0.0
 * @category models
 */
export type Plan =
  | { readonly _tag: "Now"; readonly expired: ReadonlyArray<SemaphoreProtocol.ExpiredPermit> }
  | { readonly _tag: "Sleep"; readonly sleepMs: number }

/**
 * Plans after a conflict on `record`: if the permits fit once the other holders that are over are removed, and no one
 * else's reservation keeps the caller out (`SemaphoreRecord.isKeptOutAt`), go at once and remove them; else sleep until the next holder could be over, or `pollMs`, whichever is sooner. A holder under a
 * lease session is over when `sessions` has its session judged dead (see `sessionsToJudge`), whatever its lease
 * fields say; it is removed only while still under that session.
 *
 * @since 1.0.0
 * @category constructors
 */
export const plan = (args: {
  readonly options: AttemptOptions
  readonly owner: string
  readonly sightings: Sightings
  readonly record: SemaphoreRecord
  readonly wallNow: number
  readonly now: number
  readonly pollMs: number
  /** The verdicts on the sessions of `sessionsToJudge`. */
  readonly sessions?: ReadonlyMap<string, SessionVerdict.Verdict> | undefined
}): Plan => {
  const { now, options, owner, record, sightings, wallNow } = args
  const expired: Array<SemaphoreProtocol.ExpiredPermit> = []
  let freed = 0
  let nextOverMs = Infinity
  for (const holder of record.holders) {
    if (holder.owner === owner) continue
    const session = LeaseSession.sessionOf(holder)
    const ms = session === undefined
      ? untilOverMs(options, sightings, holder, wallNow, now)
      : untilJudgedMs(args.sessions?.get(session))
    if (ms <= 0) {
      expired.push({
        owner: holder.owner,
        permits: holder.permits,
        version: holder.version,
        ...(session === undefined ? {} : { session })
      })
      freed += holder.permits
    } else {
      nextOverMs = Math.min(nextOverMs, ms)
    }
  }
  if (record.used - freed + options.permits <= record.limit && !isKeptOutAt(record, owner, options.permits, wallNow)) {
    return { _tag: "Now", expired }
  }
  return { _tag: "Sleep", sleepMs: Math.min(args.pollMs, nextOverMs) }
}

/**
 * What follows a conflict, given its plan.
 *
 * - `Again`: the next attempt at once (a few in a row at most).
 * - `GiveUp`: the wait is over.
 * - `Sleep`: sleep `sleepMs`, or a fresh jittered poll when it is `undefined` (the plan was to go at once, but the
 *   attempts in a row ran out).
 *
 * @since 1.0.0
 * @category models
 */
export type Next =
  | { readonly _tag: "Again" }
  | { readonly _tag: "GiveUp" }
  | { readonly _tag: "Sleep"; readonly sleepMs: number | undefined }

/**
 * Decides what follows a conflict planned as `plan`, after `eager` attempts in a row, at `now`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const next = (plan: Plan, eager: number, now: number, waitUntil: number): Next => {
  if (plan._tag === "Now" && eager < maxEagerAttempts) return { _tag: "Again" }
  if (AcquireBound.isWaitOver(now, waitUntil)) return { _tag: "GiveUp" }
  return { _tag: "Sleep", sleepMs: plan._tag === "Sleep" ? plan.sleepMs : undefined }
}

/**
 * What an attempt's answer means.
 *
 * - `Acquired`: the permits are ours, as `record` (the caller's entry as a lock's record), with a lease counted from
 *   `sentAt` (the earliest write that may have set it).
 * - `TooLate`: ours, but answered after the lease it granted could be over: the entry is given back, and the acquire
 *   goes on with a fresh owner id.
 * - `Conflict`: not ours; `current` is the record as the store showed it (none: the next attempt creates it).
 * - `LimitMismatch`: the record has another limit, `storedLimit`.
 *
 * @since 1.0.0
 * @category models
 */
export type Answer =
  | { readonly _tag: "Acquired"; readonly record: LockRecord; readonly sentAt: number }
  | { readonly _tag: "TooLate"; readonly answeredAfterMs: number }
  | { readonly _tag: "Conflict"; readonly current: SemaphoreRecord | undefined }
  | { readonly _tag: "LimitMismatch"; readonly storedLimit: number }

/**
 * Judges `result`, the answer at `now` of the write sent at `sentAt`. A conflict that shows an entry of our own owner is
 * ours: one of its writes whose answer never came applied. Either way the lease counts from the earliest write of the
 * owner whose outcome is unknown.
 *
 * @since 1.0.0
 * @category constructors
 */
export const judge = (args: {
  readonly options: AttemptOptions
  readonly name: string
  readonly owner: AcquireOwner.AcquireOwner
  readonly result: SemaphoreProtocol.AcquirePermitsResult
  readonly sentAt: number
  readonly now: number
}): Answer => {
  const { name, now, owner, result, sentAt } = args
  if (result._tag === "LimitMismatch") return { _tag: "LimitMismatch", storedLimit: result.limit }
  const entry = result._tag === "Conflict"
    ? result.current?.holders.find((holder) => holder.owner === owner.owner)
    : undefined
  const record = result._tag === "Acquired"
    ? result.record
    : entry === undefined
    ? undefined
    : permitRecord(name, entry)
  if (record === undefined) {
    return { _tag: "Conflict", current: result._tag === "Conflict" ? result.current : undefined }
  }
  const leaseStart = AcquireOwner.leaseStart(owner, sentAt)
  if (LeaseDeadline.isInTime(args.options, leaseStart, now)) return { _tag: "Acquired", record, sentAt: leaseStart }
  return { _tag: "TooLate", answeredAfterMs: now - sentAt }
}

/**
 * How far the permits were from fitting, as last seen, for the answer of an acquire that gives up.
 *
 * @since 1.0.0
 * @category constructors
 */
export const shortage = (
  options: AttemptOptions,
  record: SemaphoreRecord | undefined
): { readonly wanted: number; readonly limit: number; readonly used: number; readonly holders: number } => ({
  wanted: options.permits,
  limit: options.limit,
  used: record?.used ?? 0,
  holders: record?.holders.length ?? 0
})
