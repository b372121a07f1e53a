/**
 * Effect 3's side of what the demo's workers take from Effect where the majors differ (Effect 4's is in
 * `effectLine.effect4.ts`): the line's version, schema constructors, and a program's minimum log level.
 *
 * @since 1.0.0
 */
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Schema from "effect/Schema"
export { getCurrentVersion as effectVersion } from "effect/ModuleVersion"

type Members = readonly [Schema.Schema.All, Schema.Schema.All, ...Array<Schema.Schema.All>]

/**
 * @since 1.0.0
 * @category schemas
 */
export const Union = <const M extends Members>(members: M) => Schema.Union(...members)

/**
 * @since 1.0.0
 * @category schemas
 */
export const Literals = <const L extends ReadonlyArray<string>>(literals: L) => Schema.Literal(...literals)

/**
 * @since 1.0.0
 * @category schemas
 */
export const fromJsonString = <A, I>(schema: Schema.Schema<A, I>) => Schema.parseJson(schema)

/**
 * @since 1.0.0
 * @category logging
 */
export const warningsAndAbove = Logger.withMinimumLogLevel(LogLevel.Warning)
