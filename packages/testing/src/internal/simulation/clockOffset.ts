/**
 * A skewed wall clock: a constant offset on top of the clock in context, for tests on `TestClock`.
 *
 * @internal
 */
import * as ProcessClock from "@leasehold/core/simulation/ProcessClock"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

/** @internal */
export const withClockOffset = (offsetMs: number) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.clockWith((base) => {
    const wall = () => ProcessClock.skewMillis(base.unsafeCurrentTimeMillis(), offsetMs)
    const skewed: Clock.Clock = {
      [Clock.ClockTypeId]: Clock.ClockTypeId,
      unsafeCurrentTimeMillis: wall,
      currentTimeMillis: Effect.sync(wall),
      unsafeCurrentTimeNanos: () => base.unsafeCurrentTimeNanos(),
      currentTimeNanos: base.currentTimeNanos,
      sleep: (duration) => base.sleep(duration)
    }
    return Effect.withClock(self, skewed)
  })
