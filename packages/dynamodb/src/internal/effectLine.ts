/**
 * Effect 3's side of what the store's shell takes from Effect where the majors differ (Effect 4's side is
 * `effectLine.effect4.ts`): a few names and types, how a clock is read and provided, `Either` for Effect 4's `Result`.
 *
 * @internal
 */
import * as Clock from "effect/Clock"

export { nonEmptyString as configNonEmptyString, string as configString, url as configUrl } from "effect/Config"
export type { ConfigError } from "effect/ConfigError"
export type { DurationInput } from "effect/Duration"
export { async as callback, withClock } from "effect/Effect"
export { getOrUndefined } from "effect/Either"
export { scoped as layerScoped, unwrapEffect as layerUnwrap } from "effect/Layer"
export { nextRange as nextBetween } from "effect/Random"

export const liveClock: Clock.Clock = Clock.make()
export const currentTimeMillisUnsafe = (clock: Clock.Clock): number => clock.unsafeCurrentTimeMillis()
export const monotonicTimeNanosUnsafe = (clock: Clock.Clock): bigint => clock.unsafeCurrentTimeNanos()
export const testClockMember = "sleeps"
