/**
 * The arithmetic of a simulated process's clocks, without a runtime: its wall clock reads true time plus its offset at
 * that time (constant, or stepping: jumps and freezes), its monotonic clock reads true time unskewed, each in
 * milliseconds or in integer nanoseconds since the Unix epoch. Each Effect line wraps these readings in its own clock.
 *
 * @since 1.0.0
 */
import type * as Timeline from "./Timeline.js"

/**
 * Epoch milliseconds of true time 0: fences of new names start from the clock, so start from a realistic one.
 *
 * @since 1.0.0
 * @category constants
 */
export const epochMs = 1_700_000_000_000

/**
 * Nanoseconds since the Unix epoch at `ms` milliseconds of true time, an integer: sleeps may be fractional
 * milliseconds (e.g. lease / 3), and the epoch stays out of the float arithmetic, whose integers are not exact that
 * far up in nanoseconds.
 *
 * @since 1.0.0
 * @category clocks
 */
export const nanosAt = (ms: number): bigint => BigInt(epochMs) * 1_000_000n + BigInt(Math.round(ms * 1_000_000))

/**
 * What a process's clock reads now.
 *
 * @since 1.0.0
 * @category models
 */
export interface Readings {
  /** Wall time in epoch milliseconds: true time plus the offset. */
  readonly wallMillis: () => number
  /** Wall time in epoch nanoseconds. */
  readonly wallNanos: () => bigint
  /** Monotonic time in nanoseconds: true time, unskewed. */
  readonly monotonicNanos: () => bigint
}

/**
 * The readings of a process whose wall clock is `offsetMs` off true time on `timeline` (a constant, or a function of
 * true time, as `WallClock.offsetOf` gives it).
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (timeline: Timeline.Timeline, offsetMs: number | ((now: number) => number)): Readings => {
  const offsetAt = typeof offsetMs === "number" ? () => offsetMs : offsetMs
  return {
    wallMillis: () => epochMs + timeline.now + offsetAt(timeline.now),
    wallNanos: () => nanosAt(timeline.now + offsetAt(timeline.now)),
    monotonicNanos: () => nanosAt(timeline.now)
  }
}

/**
 * A wall reading in milliseconds moved by a constant `offsetMs`, as a skewed clock on top of another reads it.
 *
 * @since 1.0.0
 * @category clocks
 */
export const skewMillis = (baseMs: number, offsetMs: number): number => baseMs + offsetMs

/**
 * A wall reading in nanoseconds moved by a constant `offsetMs`, kept an integer.
 *
 * @since 1.0.0
 * @category clocks
 */
export const skewNanos = (baseNanos: bigint, offsetMs: number): bigint =>
  baseNanos + BigInt(Math.round(offsetMs * 1_000_000))
