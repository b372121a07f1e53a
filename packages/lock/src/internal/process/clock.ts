/**
 * Monotonic time in milliseconds, through Effect's `Clock` (so TestClock drives it).
 *
 * Deadlines use this clock, never the wall clock: a wall clock that jumps must not stretch a lease.
 *
 * @internal
 */
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as EffectLine from "../effectLine.js"

/**
 * Monotonic time in milliseconds from `clock`, read synchronously, for loops that already hold the clock.
 *
 * @internal
 */
export const monotonicMillisOf = (clock: Clock.Clock): number =>
  // Rounded, not floored: a clock that derives nanos from float milliseconds (TestClock) may land a hair below the
  // instant.
  Number((EffectLine.monotonicTimeNanosUnsafe(clock) + 500_000n) / 1_000_000n)

/** @internal */
export const monotonicMillis: Effect.Effect<number> = Effect.clockWith((clock) =>
  Effect.succeed(monotonicMillisOf(clock))
)
