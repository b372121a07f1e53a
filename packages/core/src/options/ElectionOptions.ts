/**
 * The options of a leader election and of a leader watch that are the election's own: a campaign's back-off and
 * failure budget, and the watcher's poll interval and takeover mode. A campaign's lock options are a lock's
 * (`LockOptions`), with `wait: "forever"`.
 *
 * @since 1.0.0
 */
import * as DurationInput from "./DurationInput.js"
import * as DurationOption from "./DurationOption.js"
import * as LockOptions from "./LockOptions.js"
import * as OptionCheck from "./OptionCheck.js"

/**
 * A watcher reads the store once a second unless told otherwise: as often as a waiter polls at most.
 *
 * @since 1.0.0
 * @category defaults
 */
export const defaultWatchPollIntervalMs = LockOptions.maxPollIntervalMs

/**
 * What an election adds to the lock's options of its campaigns.
 *
 * @since 1.0.0
 * @category models
 */
export interface RunInput<D> {
  readonly maxBackoff?: D | undefined
  readonly maxCampaignFailures?: number | "forever" | undefined
}

/**
 * The election's own options, resolved.
 *
 * @since 1.0.0
 * @category models
 */
export interface ResolvedRun {
  readonly maxBackoffMs: number
  /** `Infinity` for "forever". */
  readonly maxCampaignFailures: number
}

/**
 * The options of a leader watch as a caller gives them.
 *
 * @since 1.0.0
 * @category models
 */
export interface WatchInput<D> {
  readonly pollInterval?: D | undefined
  readonly takeover?: "absolute" | "observed" | undefined
}

/**
 * The options of a leader watch, resolved.
 *
 * @since 1.0.0
 * @category models
 */
export interface ResolvedWatch {
  readonly pollIntervalMs: number
  readonly takeover: "absolute" | "observed"
}

/**
 * The lock's options of a campaign: the caller's, without the election's own fields, waiting as long as it takes.
 *
 * @since 1.0.0
 * @category resolution
 */
export const lockOptionsOf = <O extends RunInput<unknown>>(
  options: O | undefined
): Omit<O, keyof RunInput<unknown>> & { readonly wait: "forever" } => {
  if (options === undefined) {
    return { wait: "forever" } as Omit<O, keyof RunInput<unknown>> & { readonly wait: "forever" }
  }
  const { maxBackoff: _maxBackoff, maxCampaignFailures: _maxCampaignFailures, ...lock } = options
  return { ...lock, wait: "forever" }
}

const campaignFailures = (input: unknown): OptionCheck.OptionCheck<number> => {
  if (input === undefined || input === "forever") return OptionCheck.ok(Infinity)
  if (typeof input === "number" && Number.isSafeInteger(input) && input >= 1) return OptionCheck.ok(input)
  return OptionCheck.invalid(
    "maxCampaignFailures",
    `maxCampaignFailures must be a whole number of at least 1, or "forever"; got ${DurationInput.describe(input)}`
  )
}

/**
 * Checks the election's own options of `run`; the back-off is at most a lease (`leaseMs`, the campaign's) unless
 * given.
 *
 * @since 1.0.0
 * @category resolution
 */
export const resolveRun = <D>(
  options: RunInput<D> | undefined,
  leaseMs: number,
  readMillis: DurationInput.ReadMillis<D>
): OptionCheck.OptionCheck<ResolvedRun> => {
  const maxBackoffMs = DurationOption.checkPositive("maxBackoff", options?.maxBackoff, leaseMs, readMillis)
  if (maxBackoffMs._tag === "Invalid") return maxBackoffMs
  const maxCampaignFailures = campaignFailures(options?.maxCampaignFailures)
  if (maxCampaignFailures._tag === "Invalid") return maxCampaignFailures
  return OptionCheck.ok({ maxBackoffMs: maxBackoffMs.value, maxCampaignFailures: maxCampaignFailures.value })
}

/**
 * Checks the options of a leader watch; the takeover mode falls back to `defaultTakeover` (the app-wide lock
 * defaults').
 *
 * @since 1.0.0
 * @category resolution
 */
export const resolveWatch = <D>(
  options: WatchInput<D> | undefined,
  defaultTakeover: "absolute" | "observed" | undefined,
  readMillis: DurationInput.ReadMillis<D>
): OptionCheck.OptionCheck<ResolvedWatch> => {
  const pollIntervalMs = DurationOption.checkPositive(
    "pollInterval",
    options?.pollInterval,
    defaultWatchPollIntervalMs,
    readMillis
  )
  if (pollIntervalMs._tag === "Invalid") return pollIntervalMs
  const takeover = LockOptions.checkTakeover(options?.takeover ?? defaultTakeover)
  if (takeover._tag === "Invalid") return takeover
  return OptionCheck.ok({ pollIntervalMs: pollIntervalMs.value, takeover: takeover.value })
}
