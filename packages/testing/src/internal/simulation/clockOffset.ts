/**
 * A skewed wall clock: a constant offset on top of the wall readings of the clock in context (its monotonic time
 * unskewed), for tests on `TestClock`.
 *
 * @internal
 */
import * as ProcessClock from "@leasehold/core/simulation/ProcessClock"
import * as Effect from "effect/Effect"
import * as EffectLine from "../effectLine.js"

/** @internal */
export const withClockOffset = (offsetMs: number) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.clockWith((base) => {
    const skewed = EffectLine.makeClock({
      wallMillis: () => ProcessClock.skewMillis(EffectLine.currentTimeMillisUnsafe(base), offsetMs),
      wallNanos: () => ProcessClock.skewNanos(EffectLine.currentTimeNanosUnsafe(base), offsetMs),
      monotonicNanos: () => EffectLine.monotonicTimeNanosUnsafe(base)
    }, (duration) => base.sleep(duration))
    return self.pipe(EffectLine.withClock(skewed))
  })
