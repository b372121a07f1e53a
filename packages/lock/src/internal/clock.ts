/**
 * Monotonic time in milliseconds, through Effect's `Clock` (so TestClock drives it).
 *
 * Deadlines use this clock, never the wall clock: a wall clock that jumps must not stretch a lease.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

/** @internal */
export const monotonicMillis: Effect.Effect<number> = Effect.map(
  Clock.currentTimeNanos,
  // Rounded, not floored: TestClock derives nanos from float milliseconds, which may land a hair below the instant.
  (nanos) => Number((nanos + 500_000n) / 1_000_000n)
)
