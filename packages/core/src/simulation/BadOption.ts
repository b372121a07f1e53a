/**
 * The invalid options a `badOptions` section passes: which option, its value, and how a history shows it. Each
 * Effect line turns the description into its own options (a duration of its own for `Duration` values).
 *
 * @since 1.0.0
 */
import type * as Schedule from "./Schedule.js"

/**
 * Every kind of invalid option, for generators.
 *
 * @since 1.0.0
 * @category constants
 */
export const badOptions: ReadonlyArray<Schedule.BadOption> = [
  "maxClockSkewNaN",
  "maxClockSkewNegativeString",
  "maxClockSkewNegativeDuration",
  "safetyMarginNegativeBigint",
  "maxClockSkewInfinite",
  "waitNaN",
  "warnAtInsideMargin",
  "heartbeatNegative"
]

/**
 * One invalid option: the option it sets, its value (`{ millis }` stands for a `Duration` of that many milliseconds,
 * which each line builds with its own `Duration`), and how to show it.
 *
 * @since 1.0.0
 * @category models
 */
export interface Described {
  readonly option: "maxClockSkew" | "safetyMargin" | "wait" | "warnAt" | "heartbeat"
  readonly value: number | string | bigint | { readonly millis: number }
  readonly show: string
}

/**
 * What `bad` stands for with the schedule's `timings`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const describe = (bad: Schedule.BadOption, timings: Schedule.LockTimings): Described => {
  switch (bad) {
    case "maxClockSkewNaN":
      return { option: "maxClockSkew", value: NaN, show: "maxClockSkew: NaN" }
    case "maxClockSkewNegativeString":
      return { option: "maxClockSkew", value: "-10 seconds", show: `maxClockSkew: "-10 seconds"` }
    case "maxClockSkewNegativeDuration":
      return { option: "maxClockSkew", value: { millis: -10_000 }, show: "maxClockSkew: Duration.millis(-10000)" }
    case "safetyMarginNegativeBigint":
      return { option: "safetyMargin", value: -5n, show: "safetyMargin: -5n" }
    case "maxClockSkewInfinite":
      return { option: "maxClockSkew", value: Infinity, show: "maxClockSkew: Infinity" }
    case "waitNaN":
      return { option: "wait", value: NaN, show: "wait: NaN" }
    case "warnAtInsideMargin": {
      // At risk from the moment it is acquired: the warning point lies before the lease's local deadline.
      const warnAt = timings.leaseMs - Math.round(timings.safetyMarginMs / 2)
      return {
        option: "warnAt",
        value: warnAt,
        show: `warnAt: ${warnAt} (lease ${timings.leaseMs}, safetyMargin ${timings.safetyMarginMs})`
      }
    }
    case "heartbeatNegative":
      return { option: "heartbeat", value: -timings.heartbeatMs, show: `heartbeat: ${-timings.heartbeatMs}` }
  }
}
