/**
 * Effect 3's side of what the store's shell takes from Effect where the majors differ (Effect 4's is
 * `effectLine.effect4.ts`): names, two types, how a clock is read and provided, and `Either` where Effect 4 has `Result`.
 *
 * @internal
 */
import * as LockDuration from "@leasehold/lock/LockDuration"
import * as Clock from "effect/Clock"
import type * as ConfigErrors from "effect/ConfigError"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as TestClock from "effect/TestClock"

export type DurationInput = Duration.DurationInput
export type ConfigError = ConfigErrors.ConfigError
export { nonEmptyString as configNonEmptyString, string as configString, url as configUrl } from "effect/Config"
export { async as callback, fork as forkChild, forkDaemon as forkDetach } from "effect/Effect"
export { scoped as layerScoped, unwrapEffect as layerUnwrap } from "effect/Layer"
export { nextRange as nextBetween } from "effect/Random"

/** The system's clock, for what runs in real time whatever clock the fiber has. */
export const liveClock: Clock.Clock = Clock.make()
export const withClock = (clock: Clock.Clock) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.withClock(self, clock)
export const currentTimeMillisUnsafe = (clock: Clock.Clock): number => clock.unsafeCurrentTimeMillis()
/** A `TestClock`'s monotonic time follows its time here. */
export const monotonicTimeNanosUnsafe = (clock: Clock.Clock): bigint => clock.unsafeCurrentTimeNanos()
export const isTestClock = (clock: Clock.Clock): boolean => {
  const candidate = clock as Partial<TestClock.TestClock>
  return typeof candidate.adjust === "function" && typeof candidate.setTime === "function" &&
    candidate.sleeps !== undefined
}
/** `LockDuration.toMillis`'s milliseconds, or `undefined` for an input that is no duration. */
export const durationMillis = (input: unknown): number | undefined =>
  Either.getOrUndefined(LockDuration.toMillis(input))
