/**
 * The decisions of a lock's acquire loop, one conditional write per attempt: what to ask the store to take over, what
 * an answer means (the lock is ours, ours too late to use, or someone else's), what an observed-mode waiter remembers
 * of a holder, how long until the holder's lease could be taken over, and what follows a conflict (give up, reserve,
 * sleep how long). What follows a store failure or an answer too late is the same for both loops (`AcquireStep`).
 * Times are ms: `now` and `sentAt` on the monotonic clock, `wallNow` on the wall clock.
 *
 * @since 1.0.0
 */
import * as LeaseDeadline from "../lease/LeaseDeadline.js"
import type { LockRecord } from "../record/LockRecord.js"
import type * as LockProtocol from "../store/LockProtocol.js"
import * as LockTransitions from "../store/LockTransitions.js"
import * as AcquireBound from "./AcquireBound.js"
import * as AcquireOwner from "./AcquireOwner.js"
import * as Reservation from "./Reservation.js"

/**
 * What the loop's decisions depend on of an acquire's options.
 *
 * @since 1.0.0
 * @category models
 */
export interface AttemptOptions {
  readonly takeover: "absolute" | "observed"
  readonly maxClockSkewMs: number
  readonly leaseMs: number
  readonly safetyMarginMs: number
}

/**
 * A holder as seen by an observed-mode waiter, with the monotonic time it was first seen in this state.
 *
 * @since 1.0.0
 * @category models
 */
export interface Observation {
  readonly owner: string
  readonly fence: number
  readonly version: number
  readonly leaseMs: number
  readonly seenAt: number
}

const sameHolder = (observation: Observation | undefined, record: LockRecord) =>
  observation !== undefined && observation.owner === record.owner && observation.fence === record.fence &&
  observation.version === record.version

/**
 * What a waiter knows of a conflicting holder after seeing `holder` at `now`: the same observation while the holder
 * is in the same state (same owner, fence and version), a fresh one when it changed; nothing new when there is no
 * holder.
 *
 * @since 1.0.0
 * @category constructors
 */
export const observe = (
  observation: Observation | undefined,
  holder: LockRecord | undefined,
  now: number
): Observation | undefined => {
  if (holder === undefined || holder.owner === undefined || sameHolder(observation, holder)) return observation
  return { owner: holder.owner, fence: holder.fence, version: holder.version, leaseMs: holder.leaseMs, seenAt: now }
}

/**
 * What the attempt sent at `now` asks the store to take over: by the clocks (absolute), or (observed) the holder this
 * waiter has watched stay unchanged for a full lease, if any.
 *
 * @since 1.0.0
 * @category constructors
 */
export const takeover = (
  options: AttemptOptions,
  observation: Observation | undefined,
  now: number
): LockProtocol.Takeover => {
  if (options.takeover === "absolute") return { _tag: "Absolute", maxClockSkewMs: options.maxClockSkewMs }
  const seen = observation
  return { _tag: "Observed", stale: seen !== undefined && now - seen.seenAt >= seen.leaseMs ? seen : undefined }
}

/**
 * Whether a look at `record` (read at `now`, `wallNow` on the wall clock) finds the lock worth a write: the write
 * would take it as the store judges it, by our clocks. An attempt after a sleep looks first (a read), and writes only
 * then: most polls of a contended lock find it still held, and a read costs less than a conditional write that fails
 * (one call where a store that does not return the holder with a failed condition needs two, and a read unit where
 * DynamoDB bills the failed write a write unit). A record that names our own owner is ours already, and is not
 * written again. With `orphan`, the write would take the lock from a holder whose session was judged dead.
 *
 * @since 1.0.0
 * @category predicates
 */
export const worthWriting = (
  options: AttemptOptions,
  owner: string,
  observation: Observation | undefined,
  record: LockRecord | undefined,
  now: number,
  wallNow: number,
  orphan?: LockProtocol.Orphan | undefined
): boolean =>
  record?.owner !== owner &&
  LockTransitions.admits(record, owner, takeover(options, observe(observation, record, now), now), wallNow, orphan)

/**
 * The orphan an attempt on `record` may name: the holder whose session was judged dead, while `record` still shows
 * that holder. Once the record shows anyone else, the attempt is judged by the takeover rules again.
 *
 * @since 1.0.0
 * @category constructors
 */
export const orphanOf = (
  judged: LockProtocol.Orphan | undefined,
  record: LockRecord | undefined
): LockProtocol.Orphan | undefined =>
  judged !== undefined && record?.owner === judged.owner && record.fence === judged.fence ? judged : undefined

/**
 * Whether the time until `record`'s takeover is judged on the wall clock: a held record under absolute takeover.
 * The runtime reads its wall clock for `untilTakeoverMs` only then.
 *
 * @since 1.0.0
 * @category predicates
 */
export const judgedByWallClock = (options: AttemptOptions, record: LockRecord | undefined): boolean =>
  record?.owner !== undefined && options.takeover === "absolute"

/**
 * How long until `record`'s lease could be taken over, on our clocks: 0 for a free record. Absolute: past its
 * `leaseUntil` + skew on the wall clock; observed: a full lease after the waiter first saw the holder in its state (a
 * full lease from now if it has not yet).
 *
 * @since 1.0.0
 * @category constructors
 */
export const untilTakeoverMs = (
  options: AttemptOptions,
  observation: Observation | undefined,
  record: LockRecord | undefined,
  now: number,
  wallNow: number
): number => {
  if (record?.owner === undefined) return 0
  if (options.takeover === "absolute") return record.leaseUntil + options.maxClockSkewMs + 1 - wallNow
  const seen = observation
  return seen === undefined ? record.leaseMs : seen.seenAt + seen.leaseMs - now
}

/**
 * A holder, if the record has one: a free record a reservation kept us out of names nobody.
 *
 * @since 1.0.0
 * @category getters
 */
export const heldOnly = (record: LockRecord | undefined): LockRecord | undefined =>
  record?.owner === undefined ? undefined : record

/**
 * The holder to name when the wait runs out with a call in flight: the last conflict's, if it named one.
 *
 * @since 1.0.0
 * @category getters
 */
export const lastHolder = (
  previous: LockRecord | undefined,
  result: LockProtocol.AcquireResult
): LockRecord | undefined => {
  const holder = result._tag === "Conflict" ? result.current : undefined
  return heldOnly(holder) !== undefined ? holder : previous
}

/**
 * What an attempt's answer means.
 *
 * - `Acquired`: the lock is ours, with a lease counted from `sentAt` (the earliest write that may have set it).
 * - `TooLate`: ours, but answered after the lease could already be taken over: running the section now could overlap
 *   the next holder's. The write is given back, and the acquire goes on with a fresh owner id.
 * - `Conflict`: someone else's, as `holder` shows (or the store could not tell).
 *
 * @since 1.0.0
 * @category models
 */
export type Answer =
  | { readonly _tag: "Acquired"; readonly record: LockRecord; readonly sentAt: number }
  | { readonly _tag: "TooLate"; readonly answeredAfterMs: number }
  | { readonly _tag: "Conflict"; readonly holder: LockRecord | undefined }

/**
 * Judges `result`, the answer at `now` of the write sent at `sentAt`. A conflict that names our own owner is ours: one
 * of its writes whose answer never came applied. Either way the lease may have been set by any write of the owner
 * whose outcome is unknown: it counts from the earliest of them, which can only make the local deadline earlier than
 * the lease's.
 *
 * @since 1.0.0
 * @category constructors
 */
export const judge = (args: {
  readonly options: AttemptOptions
  readonly owner: AcquireOwner.AcquireOwner
  readonly result: LockProtocol.AcquireResult
  readonly sentAt: number
  readonly now: number
}): Answer => {
  const { now, owner, result, sentAt } = args
  const holder = result._tag === "Conflict" ? result.current : undefined
  const record = result._tag === "Acquired"
    ? result.record
    : holder !== undefined && holder.owner === owner.owner
    ? holder
    : undefined
  if (record === undefined) return { _tag: "Conflict", holder }
  const leaseStart = AcquireOwner.leaseStart(owner, sentAt)
  if (LeaseDeadline.isInTime(args.options, leaseStart, now)) return { _tag: "Acquired", record, sentAt: leaseStart }
  return { _tag: "TooLate", answeredAfterMs: now - sentAt }
}

/**
 * What follows a conflict on `holder`, the record it showed.
 *
 * - `GiveUp`: the wait is over: give up with `LockNotAcquired`, naming `holder` (the lock's holder, if it has one).
 * - `Reserve`: reserve the lock for `reserveMs`, keeping others out after `graceMs` (see `Reservation`), then sleep
 *   as the record the reservation answers says (`current`, the conflict's, if the store fails).
 * - `Sleep`: sleep as the conflict's record says.
 *
 * How long the sleep is, once the record is known and the poll drawn, is `sleepMs`'s.
 *
 * @since 1.0.0
 * @category models
 */
export type AfterConflict =
  | { readonly _tag: "GiveUp"; readonly holder: LockRecord | undefined }
  | {
    readonly _tag: "Reserve"
    readonly current: LockRecord
    readonly reserveMs: number
    readonly graceMs: number
  }
  | { readonly _tag: "Sleep" }

/**
 * Decides what follows a conflict on `holder` at `now` (`wallNow` on the wall clock), for a caller waiting since
 * `waitingSince` (epoch ms, see `Reservation.waitingSince`), writing as `owner`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const afterConflict = (args: {
  readonly options: AttemptOptions & Reservation.ReservationOptions
  readonly owner: string
  readonly holder: LockRecord | undefined
  readonly waitingSince: number
  readonly now: number
  readonly wallNow: number
  readonly waitUntil: number
}): AfterConflict => {
  const { holder, now, options, waitUntil } = args
  if (AcquireBound.isWaitOver(now, waitUntil)) return { _tag: "GiveUp", holder: heldOnly(holder) }
  if (holder !== undefined && Reservation.shouldReserve(options, args.owner, holder, args.waitingSince, args.wallNow)) {
    const reserveMs = Reservation.reserveMs(options, now, waitUntil)
    return { _tag: "Reserve", current: holder, reserveMs, graceMs: Reservation.graceMs(options, holder, args.wallNow) }
  }
  return { _tag: "Sleep" }
}

/**
 * How long to sleep after a conflict, as `record` says (the conflict's, or the one its reservation answered): until the
 * holder's lease could be taken over or the jittered poll `pollMs`, whichever is sooner, as reservations change it
 * (`Reservation.sleepMs`). `wallNow` is the wall clock the conflict was judged by; `takeoverWallNow` the one the
 * takeover time is judged by, read again after a reservation's round trip when it is on the wall clock
 * (`judgedByWallClock`).
 *
 * @since 1.0.0
 * @category constructors
 */
export const sleepMs = (args: {
  readonly options: AttemptOptions & Reservation.ReservationOptions
  readonly owner: string
  readonly observation: Observation | undefined
  readonly record: LockRecord | undefined
  readonly now: number
  readonly wallNow: number
  readonly takeoverWallNow: number
  readonly pollMs: number
  readonly waitingSince: number
}): number => {
  const { now, observation, options, record } = args
  const untilTakeover = untilTakeoverMs(options, observation, record, now, args.takeoverWallNow)
  return Reservation.sleepMs({
    options,
    owner: args.owner,
    record,
    untilTakeoverMs: untilTakeover,
    pollMs: args.pollMs,
    wallNow: args.wallNow,
    waitingSince: args.waitingSince
  })
}
