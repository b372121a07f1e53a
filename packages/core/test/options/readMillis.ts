import * as Checked from "../../src/Checked.js"
import type * as DurationInput from "../../src/options/DurationInput.js"

/**
 * A runtime's reading of duration inputs, for tests: numbers are milliseconds, `"<n> seconds"` strings seconds, and
 * anything else is refused as the plain checks say.
 */
export const readMillis: DurationInput.ReadMillis<number | string> = (input) => {
  if (typeof input === "number") {
    if (Number.isNaN(input)) return Checked.invalid("is not a number")
    if (input < 0) return Checked.invalid("is negative")
    return Number.isFinite(input) ? Checked.ok(input) : Checked.invalid("is infinite")
  }
  const seconds = /^(-?\d+(?:\.\d+)?) seconds$/.exec(input)
  if (seconds === null) return Checked.invalid("is not a duration")
  const value = Number(seconds[1])
  return value < 0 ? Checked.invalid("is negative") : Checked.ok(value * 1000)
}
