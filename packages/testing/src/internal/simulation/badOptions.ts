/**
 * The invalid options a `badOptions` section passes, as values and as text for histories.
 *
 * @internal
 */
import type { Lock } from "@leasehold/lock"
import * as Duration from "effect/Duration"
import type * as Simulation from "../../Simulation.js"

/** @internal */
export const badOptions: ReadonlyArray<Simulation.BadOption> = [
  "maxClockSkewNaN",
  "maxClockSkewNegativeString",
  "maxClockSkewNegativeDuration",
  "safetyMarginNegativeBigint",
  "maxClockSkewInfinite",
  "waitNaN",
  "warnAtInsideMargin",
  "heartbeatNegative"
]

/** @internal */
export const badOptionValue = (
  bad: Simulation.BadOption,
  timings: Simulation.LockTimings
): { readonly options: Lock.LockOptions; readonly show: string } => {
  switch (bad) {
    case "maxClockSkewNaN":
      return { options: { maxClockSkew: NaN }, show: "maxClockSkew: NaN" }
    case "maxClockSkewNegativeString":
      return { options: { maxClockSkew: "-10 seconds" }, show: `maxClockSkew: "-10 seconds"` }
    case "maxClockSkewNegativeDuration":
      return { options: { maxClockSkew: Duration.millis(-10_000) }, show: "maxClockSkew: Duration.millis(-10000)" }
    case "safetyMarginNegativeBigint":
      return { options: { safetyMargin: -5n }, show: "safetyMargin: -5n" }
    case "maxClockSkewInfinite":
      return { options: { maxClockSkew: Infinity }, show: "maxClockSkew: Infinity" }
    case "waitNaN":
      return { options: { wait: NaN }, show: "wait: NaN" }
    case "warnAtInsideMargin": {
      // At risk from the moment it is acquired: the warning point lies before the lease's local deadline.
      const warnAt = timings.leaseMs - Math.round(timings.safetyMarginMs / 2)
      return {
        options: { warnAt },
        show: `warnAt: ${warnAt} (lease ${timings.leaseMs}, safetyMargin ${timings.safetyMarginMs})`
      }
    }
    case "heartbeatNegative":
      return { options: { heartbeat: -timings.heartbeatMs }, show: `heartbeat: ${-timings.heartbeatMs}` }
  }
}
