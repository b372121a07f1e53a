/**
 * Durations as Leasehold's options take them: any `Duration.DurationInput`, checked on the raw value.
 *
 * Effect's own decoding turns `NaN`, negative numbers, `"-10 seconds"`, negative bigints and `Duration.millis(-5)`
 * into a zero duration, which would hide the mistake (or, where zero is allowed, silently mean "none"). Every option
 * of every Leasehold package is decoded here first; each then applies its own bounds.
 *
 * @since 0.1.0
 */
import * as DurationInput from "@leasehold/core/options/DurationInput"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"

/** Why an Effect `Duration` is not a finite, non-negative duration, or `undefined` if it is one. */
const durationProblem = (input: Duration.Duration): string | undefined => {
  if (!Duration.isFinite(input)) return "is infinite"
  // Effect makes every negative or NaN Duration the same zero; only the `Duration.zero` constant surely means zero.
  if (Duration.toMillis(input) === 0 && input !== Duration.zero) return DurationInput.ambiguousZero
  return undefined
}

/** Why a raw input is not a finite, non-negative duration, or `undefined` if it is one. */
const problemOf = (input: unknown): string | undefined =>
  Duration.isDuration(input) ? durationProblem(input) : DurationInput.problem(input)

/**
 * The exact milliseconds of a finite, non-negative duration input, or why it is not one, phrased to follow "which"
 * ("is negative"). Callers round and bound the result as their option needs.
 *
 * @since 0.1.0
 * @category decoding
 */
export const toMillis = (input: unknown): Either.Either<number, string> => {
  const problem = problemOf(input)
  return problem === undefined
    ? Either.right(Duration.toMillis(Duration.decode(input as Duration.DurationInput)))
    : Either.left(problem)
}

/**
 * A value as error messages quote it: strings in quotes (so that "" and " " are visible), bigints with their `n`.
 *
 * @since 0.1.0
 * @category decoding
 */
export const describe: (value: unknown) => string = DurationInput.describe
