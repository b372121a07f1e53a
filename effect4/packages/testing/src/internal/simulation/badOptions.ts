/**
 * The invalid options a `badOptions` section passes, as this line's lock options: the core describes each one.
 *
 * @internal
 */
import * as BadOption from "@leasehold/core/simulation/BadOption"
import type { Lock } from "@leasehold/lock"
import * as Duration from "effect/Duration"
import type * as Simulation from "../../Simulation.js"

/** @internal */
export const badOptionValue = (
  bad: Simulation.BadOption,
  timings: Simulation.LockTimings
): { readonly options: Lock.LockOptions; readonly show: string } => {
  const { option, show, value } = BadOption.describe(bad, timings)
  // The core stands for a Duration with its milliseconds: each line builds its own.
  const input = typeof value === "object" ? Duration.millis(value.millis) : value
  return { options: { [option]: input } as Lock.LockOptions, show }
}
