/**
 * Effect 4's side of what the store's shell takes from Effect where the majors differ (Effect 3's side is
 * `effectLine.ts`): a few names and types, how a clock is read and provided, `Result` for Effect 3's `Either`.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

export type { ConfigError } from "effect/Config"
export { NonEmptyString as configNonEmptyString, String as configString, URL as configUrl } from "effect/Config"
export type { Input as DurationInput } from "effect/Duration"
export { callback } from "effect/Effect"
export { effect as layerScoped, unwrap as layerUnwrap } from "effect/Layer"
export { nextBetween } from "effect/Random"
export { getOrUndefined } from "effect/Result"

export const liveClock: Clock.Clock = Clock.Clock.defaultValue()
export const withClock = (clock: Clock.Clock) => Effect.provideService(Clock.Clock, clock)
export const currentTimeMillisUnsafe = (clock: Clock.Clock): number => clock.currentTimeMillisUnsafe()
export const monotonicTimeNanosUnsafe = (clock: Clock.Clock): bigint => clock.monotonicTimeNanosUnsafe()
export const testClockMember = "withLive"
