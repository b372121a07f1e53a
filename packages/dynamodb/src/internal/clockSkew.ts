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
 * The clock measured is the one each request runs with (the fiber's `Clock`). DynamoDB's `Date` is read on the clock
 * the store was built with: for a real clock, as it is. A `TestClock` is simulated time, which every fiber of the test
 * shares and no server follows: a store built under one reads DynamoDB's `Date` moved by as far as the `TestClock` is
 * from the system clock at that moment, so that moving the `TestClock` (time passing, for the whole test) is no skew,
 * and a clock set apart from it (`Simulation.withClockOffset`, a process with a skewed clock) is skewed by exactly that.
 * What remains is the system clock's own skew against DynamoDB's, which the guard still checks.
 *
 * @internal
 */
import type * as Clock from "effect/Clock"
import type * as TestClock from "effect/TestClock"

/**
 * How far wall-clock and monotonic elapsed time may differ before an estimate counts as stale, in ms. Without a step
 * the two differ by the wall clock's millisecond resolution and the time between reading the two clocks (a
 * preemption or a GC pause between two consecutive reads); NTP slewing adjusts both clocks alike on Linux, and where
 * it does not (at most 500 ppm) it takes well over a minute of idling to add up to this. A stale estimate costs one
 * more request (the free-only attempt that measures again), never safety; and a step the check lets through is at most
 * a hundredth of the guard's default bound (half of the default 10 s `maxClockSkew`).
 *
 * @internal
 */
export const staleToleranceMs = 50

/** @internal */
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
 * @internal
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
 * @internal
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
 * Whether `clock` is a `TestClock`: its public interface, which no real clock has.
 *
 * @internal
 */
export const isTestClock = (clock: Clock.Clock): boolean => {
  const candidate = clock as Partial<TestClock.TestClock>
  return typeof candidate.adjust === "function" && typeof candidate.setTime === "function" &&
    candidate.sleeps !== undefined
}

/**
 * How many ms the wall clock moved against the monotonic clock since the estimate was taken (positive: forward), for
 * the wall and monotonic readings of now.
 *
 * @internal
 */
export const drift = (estimate: Estimate, wallNow: number, monotonicNow: number): number =>
  (wallNow - estimate.receivedAt) - (monotonicNow - estimate.receivedAtMonotonic)

/**
 * Whether the wall clock stepped since the estimate was taken, so that it no longer describes the clock.
 *
 * @internal
 */
export const isStale = (estimate: Estimate, wallNow: number, monotonicNow: number): boolean =>
  Math.abs(drift(estimate, wallNow, monotonicNow)) > staleToleranceMs

/**
 * A clock's monotonic time in ms, as estimates keep it.
 *
 * @internal
 */
export const monotonicMillis = (clock: { readonly unsafeCurrentTimeNanos: () => bigint }): number =>
  Number(clock.unsafeCurrentTimeNanos()) / 1_000_000

/**
 * The latest estimate of one store. A mutable cell rather than a `Ref`: it is written from the SDK's middleware,
 * outside any fiber, and a lost update between concurrent responses only means keeping one of two recent estimates.
 *
 * @internal
 */
export interface Monitor {
  readonly current: () => Estimate | undefined
  /**
   * How far the store's clock reads from the system clock now, for `observe`'s `offset`; `undefined` for a real
   * clock, whose requests read the server's `Date` as it is.
   */
  readonly offset: (() => number) | undefined
  readonly observe: (
    sentAt: number,
    receivedAt: number,
    receivedAtMonotonic: number,
    dateHeader: string | undefined,
    offset?: ServerOffset
  ) => Estimate | undefined
}

/**
 * A monitor for a store built with `clock` (see the module's notes on a `TestClock`).
 *
 * @internal
 */
export const makeMonitor = (clock: Clock.Clock): Monitor => {
  let latest: Estimate | undefined
  return {
    current: () => latest,
    offset: isTestClock(clock) ? () => clock.unsafeCurrentTimeMillis() - Date.now() : undefined,
    observe: (sentAt, receivedAt, receivedAtMonotonic, dateHeader, offset) => {
      const estimate = measure(sentAt, receivedAt, receivedAtMonotonic, dateHeader, offset)
      if (estimate !== undefined) latest = estimate
      return estimate
    }
  }
}

/** A readable account of an estimate, for error messages. */
export const describe = (estimate: Estimate): string =>
  `the local clock is at least ${estimate.skewMs} ms ${estimate.localAhead ? "ahead of" : "behind"} DynamoDB's ` +
  `(server Date ${new Date(estimate.serverDate).toUTCString()}${
    estimate.simulated ? " as read on the store's TestClock" : ""
  }, local time at receipt ${new Date(estimate.receivedAt).toISOString()})`
