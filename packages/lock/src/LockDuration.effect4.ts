/**
 * Durations as Leasehold's options take them: any `Duration.Input`, checked on the raw value.
 *
 * Effect's own decoding takes a negative duration as it is and makes `NaN` (and `Duration.millis(NaN)`) a zero
 * duration, which would hide the mistake (or, where zero is allowed, silently mean "none"). Every option of every
 * Leasehold package is decoded here first; each then applies its own bounds.
 *
 * @since 0.1.0
 */
import * as DurationInput from "@leasehold/core/options/DurationInput"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import * as Result from "effect/Result"

/** Why an Effect `Duration` is not a finite, non-negative duration, or `undefined` if it is one. */
const durationProblem = (input: Duration.Duration): string | undefined => {
  if (!Duration.isFinite(input)) return "is infinite"
  // Effect 4 keeps a negative Duration's sign, but makes a NaN one zero; only the `Duration.zero` constant surely
  // means zero.
  const millis = Duration.toMillis(input)
  if (millis < 0) return "is negative"
  if (millis === 0 && input !== Duration.zero) return DurationInput.ambiguousNaNZero
  return undefined
}

/** Effect 4's `{ seconds: 30 }` form of a duration input: a plain object that is not a `Duration`. */
const isDurationObject = (input: unknown): input is Duration.DurationObject =>
  typeof input === "object" && input !== null && !Array.isArray(input) && !Duration.isDuration(input)

/** Why a raw input is not a finite, non-negative duration, or `undefined` if it is one. */
const problemOf = (input: unknown): string | undefined => {
  if (Duration.isDuration(input)) return durationProblem(input)
  if (isDurationObject(input)) {
    const decoded = Duration.fromInput(input)
    return Option.isSome(decoded) ? durationProblem(decoded.value) : DurationInput.notADuration
  }
  return DurationInput.problem(input)
}

/**
 * The exact milliseconds of a finite, non-negative duration input, or why it is not one, phrased to follow "which"
 * ("is negative"). Callers round and bound the result as their option needs.
 *
 * @since 0.1.0
 * @category decoding
 */
export const toMillis = (input: unknown): Result.Result<number, string> => {
  const problem = problemOf(input)
  return problem === undefined
    ? Result.succeed(Duration.toMillis(Duration.fromInputUnsafe(input as Duration.Input)))
    : Result.fail(problem)
}

/**
 * A value as error messages quote it: strings in quotes (so that "" and " " are visible), bigints with their `n`.
 *
 * @since 0.1.0
 * @category decoding
 */
export const describe: (value: unknown) => string = DurationInput.describe
