/**
 * The provable skew between this process's clock and DynamoDB's, from the HTTP `Date` header of responses.
 *
 * `Date` has one-second resolution: a response stamped `D` left the server at a time in `[D, D + 1000)`. The request
 * was sent at local time `s` and its response received at local time `r`, so the server's clock read some value in
 * `[D, D + 1000)` while ours read some value in `[s, r]`. The skew is therefore at least
 * `max(0, D - r, s - (D + 1000))`: a lower bound that never blames our clock for network latency or for the header's
 * rounding. A process whose clock is off by more than that bound can still look fine, so the guard that uses this
 * estimate only ever refuses, never permits.
 *
 * An estimate describes the wall clock as it was when the response arrived. The wall clock can step later (an NTP
 * step, a VM resumed from a snapshot or a suspend) while the monotonic clock runs on, so each estimate also keeps the
 * monotonic time of its arrival: as long as wall and monotonic time have advanced alike since then, the estimate
 * still holds; otherwise it is stale and the skew must be measured again.
 *
 * A shell may read the server's time on a simulated clock (a test's): `ServerOffset` moves it by as far as that clock
 * reads from the system clock, so that moving the simulated clock is time passing, not skew.
 *
 * @since 1.0.0
 */

/**
 * How far wall-clock and monotonic elapsed time may differ before an estimate counts as stale, in ms. Without a step
 * the two differ by the wall clock's millisecond resolution and the time between reading the two clocks (a
 * preemption or a GC pause between two consecutive reads); NTP slewing adjusts both clocks alike on Linux, and where
 * it does not (at most 500 ppm) it takes well over a minute of idling to add up to this. A stale estimate costs one
 * more request (the free-only attempt that measures again), never safety; and a step the check lets through is at most
 * a hundredth of the guard's default bound (half of the default 10 s `maxClockSkew`).
 *
 * @since 1.0.0
 * @category constants
 */
export const staleToleranceMs = 50

/**
 * What one exchange proves about this host's clock against the server's.
 *
 * @since 1.0.0
 * @category models
 */
export interface Estimate {
  /** The latest provable minimum skew, in ms (0 when the clocks agree as far as we can tell). */
  readonly skewMs: number
  /** Whether the local clock is ahead of the server's (only meaningful when `skewMs > 0`). */
  readonly localAhead: boolean
  /** The server time seen, epoch ms (start of its one-second window), as read on the store's clock. */
  readonly serverDate: number
  /** Whether the server time was read on a `TestClock` (moved with it), not as the `Date` header said it. */
  readonly simulated: boolean
  /** Local time when the response arrived, epoch ms. */
  readonly receivedAt: number
  /** Monotonic time when the response arrived, ms (the clock's nanoseconds; only differences mean anything). */
  readonly receivedAtMonotonic: number
}

/**
 * Where the server's time lands on the store's clock: how far that clock reads from the system clock, when the request
 * was sent and when its answer arrived (both 0 for a real clock, which reads the server's `Date` as it is).
 *
 * @since 1.0.0
 * @category models
 */
export interface ServerOffset {
  readonly sent: number
  readonly received: number
}

const noOffset: ServerOffset = { sent: 0, received: 0 }

/**
 * The provable minimum skew of one exchange, or `undefined` when the header is missing or unparsable. `sentAt`,
 * `receivedAt` and `receivedAtMonotonic` are the request's clock; `offset` moves the server's time onto the store's.
 *
 * @since 1.0.0
 * @category measuring
 */
export const measure = (
  sentAt: number,
  receivedAt: number,
  receivedAtMonotonic: number,
  dateHeader: string | undefined,
  offset: ServerOffset = noOffset
): Estimate | undefined => {
  if (dateHeader === undefined) return undefined
  const date = Date.parse(dateHeader)
  if (!Number.isFinite(date)) return undefined
  const behind = date + offset.received - receivedAt
  const ahead = sentAt - (date + offset.sent + 1000)
  const skewMs = Math.max(0, behind, ahead)
  return {
    skewMs,
    localAhead: ahead > 0,
    serverDate: date + offset.received,
    simulated: offset !== noOffset,
    receivedAt,
    receivedAtMonotonic
  }
}

/**
 * How many ms the wall clock moved against the monotonic clock since the estimate was taken (positive: forward), for
 * the wall and monotonic readings of now.
 *
 * @since 1.0.0
 * @category measuring
 */
export const drift = (estimate: Estimate, wallNow: number, monotonicNow: number): number =>
  (wallNow - estimate.receivedAt) - (monotonicNow - estimate.receivedAtMonotonic)

/**
 * Whether the wall clock stepped since the estimate was taken, so that it no longer describes the clock.
 *
 * @since 1.0.0
 * @category predicates
 */
export const isStale = (estimate: Estimate, wallNow: number, monotonicNow: number): boolean =>
  Math.abs(drift(estimate, wallNow, monotonicNow)) > staleToleranceMs

/**
 * A monotonic clock's reading in nanoseconds as the ms estimates keep, unrounded: each Effect line reads its own
 * clock's monotonic nanoseconds (Effect 3's `unsafeCurrentTimeNanos`, Effect 4's `monotonicTimeNanosUnsafe`).
 *
 * @since 1.0.0
 * @category measuring
 */
export const monotonicMillis = (monotonicNanos: bigint): number => Number(monotonicNanos) / 1_000_000

/**
 * Whether an estimate is beyond what the guard allows a takeover with: half the bound.
 *
 * @since 1.0.0
 * @category predicates
 */
export const tooSkewed = (estimate: Estimate, maxClockSkewMs: number) => estimate.skewMs > maxClockSkewMs / 2

/**
 * A readable account of an estimate, for error messages.
 *
 * @since 1.0.0
 * @category messages
 */
export const describe = (estimate: Estimate): string =>
  `the local clock is at least ${estimate.skewMs} ms ${estimate.localAhead ? "ahead of" : "behind"} DynamoDB's ` +
  `(server Date ${new Date(estimate.serverDate).toUTCString()}${
    estimate.simulated ? " as read on the store's TestClock" : ""
  }, local time at receipt ${new Date(estimate.receivedAt).toISOString()})`
