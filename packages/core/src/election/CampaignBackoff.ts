/**
 * What a leader election does after a campaign that failed (the store failed; not a lost term, which campaigns again
 * at once): back off, doubling, or give up after too many failures in a row.
 *
 * @since 1.0.0
 */

/**
 * What the back-off depends on of the election's options (ms).
 *
 * @since 1.0.0
 * @category models
 */
export interface BackoffOptions {
  readonly maxBackoffMs: number
  readonly pollIntervalMs: number
}

/**
 * How long to wait after the `failures`-th failed campaign in a row, for `random` a draw of the unit interval: the poll
 * interval, doubling, at most `maxBackoffMs`, jittered between half and all of it.
 *
 * @since 1.0.0
 * @category constructors
 */
export const backoffMs = (options: BackoffOptions, failures: number, random: number): number => {
  const full = Math.min(options.maxBackoffMs, options.pollIntervalMs * 2 ** Math.min(failures - 1, 30))
  return Math.max(1, Math.round(full * (0.5 + random / 2)))
}

/**
 * Whether the election gives up after the `failures`-th failed campaign in a row (`maxCampaignFailures` may be
 * `Infinity`: never).
 *
 * @since 1.0.0
 * @category predicates
 */
export const givesUp = (failures: number, maxCampaignFailures: number): boolean => failures >= maxCampaignFailures
