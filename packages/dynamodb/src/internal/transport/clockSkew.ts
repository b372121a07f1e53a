/**
 * The estimate of this process's clock against DynamoDB's, kept per store and fed by every response's `Date` header
 * (the arithmetic is the core's `ClockSkew`; the estimate's cell and the probe that feeds it, its `SkewMonitor`). What
 * stays here is how this line reads its clocks.
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
import * as ClockSkew from "@leasehold/core/dynamodb/ClockSkew"
import * as SkewMonitor from "@leasehold/core/dynamodb/SkewMonitor"
import type * as Clock from "effect/Clock"
import * as EffectLine from "../effectLine.js"

export {
  /** @internal */
  describe,
  /** @internal */
  drift,
  /** @internal */
  type Estimate,
  /** @internal */
  isStale,
  /** @internal */
  measure,
  /** @internal */
  type ServerOffset,
  /** @internal */
  staleToleranceMs
} from "@leasehold/core/dynamodb/ClockSkew"

/**
 * A clock's monotonic time in ms, as the core's estimates keep it. Effect 3's clocks have one time, in ms and in ns (a
 * `TestClock`'s monotonic time follows its time); Effect 4's keep monotonic time apart (a `TestClock`'s `setTime` steps
 * its wall time, not its monotonic one).
 *
 * @internal
 */
export const monotonicMillis = (clock: Clock.Clock): number =>
  ClockSkew.monotonicMillis(EffectLine.monotonicTimeNanosUnsafe(clock))

/**
 * Whether `clock` is a `TestClock`: its public interface, which no real clock has (`adjust`, `setTime`, and a member
 * that each major's `TestClock` has apart from those, `testClockMember`).
 *
 * @internal
 */
export const isTestClock = (clock: Clock.Clock): boolean => {
  const candidate = clock as Partial<Record<"adjust" | "setTime" | typeof EffectLine.testClockMember, unknown>>
  return typeof candidate.adjust === "function" && typeof candidate.setTime === "function" &&
    candidate[EffectLine.testClockMember] !== undefined
}

/**
 * The latest estimate of one store (the core's `SkewMonitor`).
 *
 * @internal
 */
export type Monitor = SkewMonitor.Monitor

/**
 * A monitor for a store built with `clock` (see the module's notes on a `TestClock`).
 *
 * @internal
 */
export const makeMonitor = (clock: Clock.Clock): Monitor =>
  SkewMonitor.make(isTestClock(clock) ? () => EffectLine.currentTimeMillisUnsafe(clock) : undefined)

/**
 * How the core's probe reads a request's clock.
 *
 * @internal
 */
export const clockReads = (clock: Clock.Clock): SkewMonitor.ClockReads => ({
  wallMillis: () => EffectLine.currentTimeMillisUnsafe(clock),
  monotonicMillis: () => monotonicMillis(clock)
})
