/**
 * A lock's options: the built-in defaults, and how given options resolve over them into checked milliseconds before
 * any store call. Durations come as the runtime's inputs, read through its `ReadMillis`; everything after is here.
 *
 * @since 1.0.0
 */
import * as LockRecord from "../record/LockRecord.js"
import * as DurationInput from "./DurationInput.js"
import * as DurationOption from "./DurationOption.js"
import * as OptionCheck from "./OptionCheck.js"

/**
 * The options of one acquisition as a caller gives them, `D` being the runtime's duration input. `undefined` means
 * "not given".
 *
 * @since 1.0.0
 * @category models
 */
export interface Input<D> {
  readonly lease?: D | undefined
  readonly heartbeat?: D | undefined
  readonly wait?: D | "forever" | undefined
  readonly maxClockSkew?: D | undefined
  readonly warnAt?: D | undefined
  readonly safetyMargin?: D | undefined
  readonly pollInterval?: D | undefined
  readonly takeover?: "absolute" | "observed" | undefined
  readonly holder?: string | undefined
  readonly data?: string | undefined
}

/**
 * Options resolved: every time in whole milliseconds, every default filled in, every relation checked.
 *
 * @since 1.0.0
 * @category models
 */
export interface Resolved {
  readonly leaseMs: number
  readonly heartbeatMs: number
  /** `undefined`: wait forever. */
  readonly waitMs: number | undefined
  readonly maxClockSkewMs: number
  readonly warnAtMs: number
  readonly safetyMarginMs: number
  readonly pollIntervalMs: number
  readonly takeover: "absolute" | "observed"
  readonly holder: string
  readonly data: string | undefined
}

/**
 * Long enough to ride out a GC pause or a slow store call; short enough that a crashed holder's work resumes soon.
 *
 * @since 1.0.0
 * @category defaults
 */
export const defaultLeaseMs = 30_000

/**
 * Three chances to renew before the lease runs out.
 *
 * @since 1.0.0
 * @category defaults
 */
export const heartbeatsPerLease = 3

/**
 * The bound assumed for clock differences between hosts that share a lock: NTP keeps hosts far closer.
 *
 * @since 1.0.0
 * @category defaults
 */
export const defaultMaxClockSkewMs = 10_000

/**
 * Warn when a third of the lease is left: one heartbeat late is normal, two is a problem worth reporting.
 *
 * @since 1.0.0
 * @category defaults
 */
export const warnAtFraction = 1 / 3

/**
 * Stop the critical section a tenth of a lease early, to leave time for the interruption itself.
 *
 * @since 1.0.0
 * @category defaults
 */
export const safetyMarginFraction = 1 / 10

/**
 * Waiters poll at least this often by default, and at least `pollsPerLease` times per lease: a freed lock is seen
 * soon.
 *
 * @since 1.0.0
 * @category defaults
 */
export const maxPollIntervalMs = 1_000

/**
 * A short lease is polled proportionately often, so that a waiter sees a lock freed within a small part of a lease.
 *
 * @since 1.0.0
 * @category defaults
 */
export const pollsPerLease = 10

/**
 * A takeover mode as given, checked: absolute when not given.
 *
 * @since 1.0.0
 * @category validation
 */
export const checkTakeover = (input: unknown): OptionCheck.OptionCheck<"absolute" | "observed"> => {
  const takeover = input ?? "absolute"
  return takeover === "absolute" || takeover === "observed"
    ? OptionCheck.ok(takeover)
    : OptionCheck.invalid(
      "takeover",
      `takeover must be "absolute" or "observed"; got ${DurationInput.describe(takeover)}`
    )
}

/** The times of `input` in whole milliseconds, defaults filled in; relations are checked by `resolve`. */
const times = <D>(input: Input<D>, read: DurationInput.ReadMillis<D>) => {
  const leaseMs = DurationOption.check("lease", input.lease, defaultLeaseMs, false, read)
  if (leaseMs._tag === "Invalid") return leaseMs
  const lease = leaseMs.value
  const heartbeatMs = DurationOption.check("heartbeat", input.heartbeat, lease / heartbeatsPerLease, false, read)
  if (heartbeatMs._tag === "Invalid") return heartbeatMs
  const waitMs = input.wait === "forever" ? undefined : DurationOption.check("wait", input.wait, 0, true, read)
  if (waitMs?._tag === "Invalid") return waitMs
  const skewMs = DurationOption.check("maxClockSkew", input.maxClockSkew, defaultMaxClockSkewMs, true, read)
  if (skewMs._tag === "Invalid") return skewMs
  const marginMs = DurationOption.check("safetyMargin", input.safetyMargin, lease * safetyMarginFraction, true, read)
  if (marginMs._tag === "Invalid") return marginMs
  // The at-risk point is measured against the local deadline (lease - safetyMargin): never past it by default.
  const warnAtDefault = Math.min(lease * warnAtFraction, (lease - marginMs.value) / 2)
  const warnAtMs = DurationOption.check("warnAt", input.warnAt, warnAtDefault, true, read)
  if (warnAtMs._tag === "Invalid") return warnAtMs
  const pollDefault = Math.min(maxPollIntervalMs, lease / pollsPerLease)
  const pollIntervalMs = DurationOption.check("pollInterval", input.pollInterval, pollDefault, false, read)
  if (pollIntervalMs._tag === "Invalid") return pollIntervalMs
  return OptionCheck.ok({
    leaseMs: lease,
    heartbeatMs: heartbeatMs.value,
    waitMs: waitMs?.value,
    maxClockSkewMs: skewMs.value,
    warnAtMs: warnAtMs.value,
    safetyMarginMs: marginMs.value,
    pollIntervalMs: pollIntervalMs.value
  })
}

/** What is wrong with how the resolved times relate to one another, or `undefined`. */
const relationProblem = (
  { heartbeatMs, leaseMs, safetyMarginMs, warnAtMs }: Pick<
    Resolved,
    "leaseMs" | "heartbeatMs" | "safetyMarginMs" | "warnAtMs"
  >
): OptionCheck.Invalid | undefined => {
  if (safetyMarginMs >= leaseMs) {
    return {
      _tag: "Invalid",
      option: "safetyMargin",
      message: `safetyMargin (${safetyMarginMs} ms) must be less than lease (${leaseMs} ms)`
    }
  }
  if (heartbeatMs >= leaseMs) {
    return {
      _tag: "Invalid",
      option: "heartbeat",
      message: `heartbeat (${heartbeatMs} ms) must be less than lease (${leaseMs} ms)`
    }
  }
  const local = leaseMs - safetyMarginMs
  if (heartbeatMs >= local) {
    return {
      _tag: "Invalid",
      option: "heartbeat",
      message: `heartbeat (${heartbeatMs} ms) must be less than lease minus safetyMargin (${local} ms), or the lease ` +
        `would be lost before the first renew`
    }
  }
  if (warnAtMs >= local) {
    return {
      _tag: "Invalid",
      option: "warnAt",
      message: `warnAt (${warnAtMs} ms) must be less than lease minus safetyMargin (${local} ms), the time a fresh ` +
        `lease has before its local deadline, or every lease would be at risk from the start`
    }
  }
  return undefined
}

/**
 * Checks `input` and fills in the built-in defaults (`defaultHolder` for the holder). Each value is checked on its
 * own first, in the order of `Resolved`'s times, then how they relate, then the takeover mode, holder and data.
 *
 * @since 1.0.0
 * @category resolution
 */
export const resolve = <D>(
  input: Input<D>,
  defaultHolder: string,
  readMillis: DurationInput.ReadMillis<D>
): OptionCheck.OptionCheck<Resolved> => {
  const resolvedTimes = times(input, readMillis)
  if (resolvedTimes._tag === "Invalid") return resolvedTimes
  const relation = relationProblem(resolvedTimes.value)
  if (relation !== undefined) return relation
  const takeover = checkTakeover(input.takeover)
  if (takeover._tag === "Invalid") return takeover
  const holder = input.holder ?? defaultHolder
  if (typeof holder !== "string" || holder.length === 0) {
    return OptionCheck.invalid("holder", `holder must be a non-empty string; got ${DurationInput.describe(holder)}`)
  }
  const data = input.data
  const payload = LockRecord.payloadProblem({ holder, data })
  if (payload !== undefined) return OptionCheck.invalid(payload.field, payload.message)
  const t = resolvedTimes.value
  // Every field named in one literal, in one order: every resolved options object then shares one hidden class, where
  // a spread gave each its own, which a process holding thousands of leases kept once per lease.
  return OptionCheck.ok({
    leaseMs: t.leaseMs,
    heartbeatMs: t.heartbeatMs,
    waitMs: t.waitMs,
    maxClockSkewMs: t.maxClockSkewMs,
    warnAtMs: t.warnAtMs,
    safetyMarginMs: t.safetyMarginMs,
    pollIntervalMs: t.pollIntervalMs,
    takeover: takeover.value,
    holder,
    data
  })
}

/**
 * `options` over `defaults`, field by field: a field of `options` that is `undefined` leaves the default in place.
 *
 * @since 1.0.0
 * @category resolution
 */
export const overlay = <I extends object>(defaults: I, options: I | undefined): I => {
  if (options === undefined) return defaults
  const merged: Record<string, unknown> = { ...(defaults as Record<string, unknown>) }
  for (const key in options) {
    const value = (options as Record<string, unknown>)[key]
    if (value !== undefined) merged[key] = value
  }
  return merged as I
}

/**
 * Checks each given value on its own, relations aside (they are checked when a lock is taken): for app-wide defaults,
 * so that a bad value fails at startup.
 *
 * @since 1.0.0
 * @category validation
 */
export const checkValues = <D>(input: Input<D>, readMillis: DurationInput.ReadMillis<D>): OptionCheck.OptionCheck<
  void
> => {
  for (const option of ["lease", "heartbeat", "pollInterval"] as const) {
    const checked = DurationOption.check(option, input[option], 1, false, readMillis)
    if (checked._tag === "Invalid") return checked
  }
  for (const option of ["maxClockSkew", "warnAt", "safetyMargin"] as const) {
    const checked = DurationOption.check(option, input[option], 0, true, readMillis)
    if (checked._tag === "Invalid") return checked
  }
  if (input.wait !== "forever") {
    const checked = DurationOption.check("wait", input.wait, 0, true, readMillis)
    if (checked._tag === "Invalid") return checked
  }
  return OptionCheck.ok(undefined)
}
