/**
 * Effect 4's side of what the store's shell takes from Effect where the majors differ (Effect 3's is `effectLine.ts`):
 * names, two types, how a clock is read and provided, and `Result` where Effect 3 has `Either`.
 *
 * @internal
 */
import * as LockDuration from "@leasehold/lock/LockDuration"
import * as Clock from "effect/Clock"
import type * as Config from "effect/Config"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type { TestClock } from "effect/testing"

export type DurationInput = Duration.Input
export type ConfigError = Config.ConfigError
export { NonEmptyString as configNonEmptyString, String as configString, URL as configUrl } from "effect/Config"
export { callback, forkChild, forkDetach } from "effect/Effect"
export { effect as layerScoped, unwrap as layerUnwrap } from "effect/Layer"
export { nextBetween } from "effect/Random"

/** The system's clock, for what runs in real time whatever clock the fiber has. */
export const liveClock: Clock.Clock = Clock.Clock.defaultValue()
export const withClock = (clock: Clock.Clock) => Effect.provideService(Clock.Clock, clock)
export const currentTimeMillisUnsafe = (clock: Clock.Clock): number => clock.currentTimeMillisUnsafe()
/** Kept apart from wall time here: a `TestClock`'s `setTime` steps its wall time, not its monotonic one. */
export const monotonicTimeNanosUnsafe = (clock: Clock.Clock): bigint => clock.monotonicTimeNanosUnsafe()
export const isTestClock = (clock: Clock.Clock): boolean => {
  const candidate = clock as Partial<TestClock.TestClock>
  return typeof candidate.adjust === "function" && typeof candidate.setTime === "function" &&
    typeof candidate.withLive === "function"
}
/** `LockDuration.toMillis`'s milliseconds, or `undefined` for an input that is no duration. */
export const durationMillis = (input: unknown): number | undefined =>
  Result.getOrUndefined(LockDuration.toMillis(input))
