/**
 * A semaphore acquisition's own options: the limit, the permits and the smaller data budget of a semaphore holder,
 * and its lease against what the store can keep. The lease options are a lock's (`LockOptions`), resolved between the
 * two checks here.
 *
 * @since 1.0.0
 */
import * as SemaphoreRecord from "../record/SemaphoreRecord.js"
import type * as SemaphoreProtocol from "../store/SemaphoreProtocol.js"
import type * as LockOptions from "./LockOptions.js"
import * as OptionCheck from "./OptionCheck.js"
import * as OptionsRecord from "./OptionsRecord.js"

/**
 * A semaphore's own options as a caller gives them.
 *
 * @since 1.0.0
 * @category models
 */
export interface Input {
  readonly limit: number
  readonly permits?: number | undefined
  readonly data?: string | undefined
}

/**
 * How many permits of which limit an acquisition takes.
 *
 * @since 1.0.0
 * @category models
 */
export interface Permits {
  readonly limit: number
  readonly permits: number
}

/**
 * A semaphore acquisition's options, resolved.
 *
 * @since 1.0.0
 * @category models
 */
export interface Resolved extends Permits {
  readonly lease: LockOptions.Resolved
}

/**
 * The permits an acquisition takes when the options say nothing.
 *
 * @since 1.0.0
 * @category defaults
 */
export const defaultPermits = 1

/**
 * Checks the limit, the permits and the data a holder will store (the call's, or else `defaultData`, the app-wide
 * default's), before the lock's own checks: their budget for data is far larger, and the message is then a
 * semaphore's.
 *
 * @since 1.0.0
 * @category validation
 */
export const checkPermits = (options: Input, defaultData: string | undefined): OptionCheck.OptionCheck<Permits> => {
  if (options === undefined) {
    return OptionCheck.invalid("limit", "a semaphore needs options with its limit, e.g. { limit: 4 }; got undefined")
  }
  const record = OptionsRecord.check(options, "required", "a semaphore's options")
  if (record._tag === "Invalid") return record
  const permits = options.permits ?? defaultPermits
  // The limit alone first (1 permit always fits a valid one), so that each problem names its own option.
  const limitProblem = SemaphoreRecord.permitsProblem(options.limit, 1)
  if (limitProblem !== undefined) return OptionCheck.invalid("limit", limitProblem)
  const problem = SemaphoreRecord.permitsProblem(options.limit, permits)
  if (problem !== undefined) return OptionCheck.invalid("permits", problem)
  const fromDefaults = options.data === undefined
  const badData = SemaphoreRecord.dataProblem(fromDefaults ? defaultData : options.data)
  if (badData !== undefined) {
    const from = fromDefaults
      ? "the app-wide default data (from Lock.layerDefaults) does not fit a semaphore: "
      : ""
    return OptionCheck.invalid("data", from + badData)
  }
  return OptionCheck.ok({ limit: options.limit, permits })
}

/**
 * How a holder with these lease options may remove expired holders.
 *
 * @since 1.0.0
 * @category conversions
 */
export const takeoverOf = (lease: LockOptions.Resolved): SemaphoreProtocol.PermitTakeover =>
  lease.takeover === "absolute" ? { _tag: "Absolute", maxClockSkewMs: lease.maxClockSkewMs } : { _tag: "Observed" }

/**
 * The resolved options, once the lease is checked against what the store can keep (`leaseProblem`, the store's
 * `semaphoreLeaseProblem`).
 *
 * @since 1.0.0
 * @category validation
 */
export const withLease = (
  permits: Permits,
  lease: LockOptions.Resolved,
  leaseProblem: (
    lease: { readonly leaseMs: number; readonly takeover: SemaphoreProtocol.PermitTakeover }
  ) => string | undefined
): OptionCheck.OptionCheck<Resolved> => {
  const problem = leaseProblem({ leaseMs: lease.leaseMs, takeover: takeoverOf(lease) })
  return problem === undefined
    ? OptionCheck.ok({ lease, limit: permits.limit, permits: permits.permits })
    : OptionCheck.invalid("lease", problem)
}
