/**
 * Durations as Leasehold's options take them: any `Duration.DurationInput`, checked on the raw value.
 *
 * Effect's own decoding turns `NaN`, negative numbers, `"-10 seconds"`, negative bigints and `Duration.millis(-5)`
 * into a zero duration, which would hide the mistake (or, where zero is allowed, silently mean "none"). Every option
 * of every Leasehold package is decoded here first; each then applies its own bounds.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"

/** Effect's duration strings, with the sign kept. */
const durationString = /^(-?\d+(?:\.\d+)?)\s+(nanos?|micros?|millis?|seconds?|minutes?|hours?|days?|weeks?)$/

const notADuration = `is not a duration such as "30 seconds" or 30000 (ms)`

/** Why a raw input is not a finite, non-negative duration, or `undefined` if it is one. */
const problemOf = (input: unknown): string | undefined => {
  if (typeof input === "number") {
    if (Number.isNaN(input)) return "is not a number"
    if (input < 0) return "is negative"
    if (!Number.isFinite(input)) return "is infinite"
    return undefined
  }
  if (typeof input === "bigint") return input < 0n ? "is negative" : undefined
  if (typeof input === "string") {
    const match = durationString.exec(input)
    if (match === null) return notADuration
    return match[1]!.startsWith("-") ? "is negative" : undefined
  }
  if (Array.isArray(input)) {
    if (input.length !== 2 || !input.every((part) => typeof part === "number")) return notADuration
    if (input.some((part) => Number.isNaN(part))) return "is not a number"
    if (input.some((part) => part < 0)) return "is negative"
    if (input.some((part) => !Number.isFinite(part))) return "is infinite"
    return undefined
  }
  if (Duration.isDuration(input)) {
    if (!Duration.isFinite(input)) return "is infinite"
    // Effect makes every negative or NaN Duration the same zero; only the `Duration.zero` constant surely means zero.
    if (Duration.toMillis(input) === 0 && input !== Duration.zero) {
      return "is a zero Duration, which is also what Effect makes of a negative or NaN one (Duration.millis(-5)); " +
        "write 0, \"0 millis\" or Duration.zero for zero"
    }
    return undefined
  }
  return notADuration
}

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
export const describe = (value: unknown): string => {
  try {
    if (typeof value === "string") return JSON.stringify(value.length > 64 ? value.slice(0, 64) + "…" : value)
    if (typeof value === "bigint") return `${value}n`
    if (Duration.isDuration(value)) return String(value)
    if (Array.isArray(value)) return `[${value.map(describe).join(", ")}]`
    return String(value)
  } catch {
    return typeof value
  }
}
