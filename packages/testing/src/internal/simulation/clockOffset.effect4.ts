/**
 * A skewed wall clock: a constant offset on top of the clock in context (milliseconds and nanoseconds alike), for
 * tests on `TestClock`.
 *
 * @internal
 */
import * as ProcessClock from "@leasehold/core/simulation/ProcessClock"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

/** @internal */
export const withClockOffset = (offsetMs: number) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.clockWith((base) => {
    const wall = () => ProcessClock.skewMillis(base.currentTimeMillisUnsafe(), offsetMs)
    const wallNanos = () => ProcessClock.skewNanos(base.currentTimeNanosUnsafe(), offsetMs)
    const skewed: Clock.Clock = {
      currentTimeMillisUnsafe: wall,
      currentTimeMillis: Effect.sync(wall),
      currentTimeNanosUnsafe: wallNanos,
      currentTimeNanos: Effect.sync(wallNanos),
      monotonicTimeNanosUnsafe: () => base.monotonicTimeNanosUnsafe(),
      monotonicTimeNanos: base.monotonicTimeNanos,
      sleep: (duration) => base.sleep(duration)
    }
    return Effect.provideService(self, Clock.Clock, skewed)
  })
