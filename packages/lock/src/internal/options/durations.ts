/**
 * Durations as the options take them, checked on the raw value (see `LockDuration`): any duration input of the Effect
 * line, read as exact milliseconds only once it is known to be a finite, non-negative duration.
 *
 * @internal
 */
import * as Checked from "@leasehold/core/Checked"
import * as DurationInput from "@leasehold/core/options/DurationInput"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import * as EffectLine from "../effectLine.js"

/** Why an Effect `Duration` is not a finite, non-negative duration, or `undefined` if it is one. */
const durationProblem = (input: Duration.Duration): string | undefined => {
  if (!Duration.isFinite(input)) return "is infinite"
  // Effect 4 keeps a negative Duration's sign, Effect 3 makes it zero; both make a NaN one zero, and only the
  // `Duration.zero` constant surely means zero.
  const millis = Duration.toMillis(input)
  if (millis < 0) return "is negative"
  if (millis === 0 && input !== Duration.zero) return EffectLine.zeroDurationProblem
  return undefined
}

/** A plain object that is not a `Duration`: Effect 4's `{ seconds: 30 }` form of a duration input. */
const isDurationObject = (input: unknown): input is object =>
  typeof input === "object" && input !== null && !Array.isArray(input) && !Duration.isDuration(input)

/** Why a raw input is not a finite, non-negative duration, or `undefined` if it is one. */
const problemOf = (input: unknown): string | undefined => {
  if (Duration.isDuration(input)) return durationProblem(input)
  if (isDurationObject(input)) {
    const decoded = EffectLine.durationFromInput(input)
    return Option.isSome(decoded) ? durationProblem(decoded.value) : DurationInput.notADuration
  }
  return DurationInput.problem(input)
}

/**
 * The exact milliseconds of a finite, non-negative duration input, or why it is not one, phrased to follow "which"
 * ("is negative").
 *
 * @internal
 */
export const millisOf = (input: unknown): Checked.Checked<number> => {
  const problem = problemOf(input)
  return problem === undefined
    ? Checked.ok(Duration.toMillis(Option.getOrThrow(EffectLine.durationFromInput(input))))
    : Checked.invalid(problem)
}
