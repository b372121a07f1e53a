/**
 * Effect 4's side of what the demo's workers take from Effect where the majors differ (Effect 3's is in
 * `effectLine.ts`): the line's version, schema constructors, and a program's minimum log level.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as References from "effect/References"
export { fromJsonString, Literals, Union } from "effect/Schema"
export { getCurrentVersion as effectVersion } from "effect/Version"

/**
 * @since 1.0.0
 * @category logging
 */
export const warningsAndAbove = Effect.provideService(References.MinimumLogLevel, "Warn")
