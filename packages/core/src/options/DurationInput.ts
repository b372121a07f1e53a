/**
 * A duration option as a person writes it, before a runtime reads it: the plain forms (a number of milliseconds, a
 * bigint of nanoseconds, a string such as "30 seconds", a `[seconds, nanos]` pair) checked on the raw value.
 *
 * Effect's own decoding turns `NaN`, negative numbers, `"-10 seconds"` and negative bigints into a zero duration, which
 * would hide the mistake (or, where zero is allowed, silently mean "none"). A shell checks an input here first, its
 * runtime's own duration values itself, and reads the milliseconds of a good one with its runtime.
 *
 * @since 1.0.0
 */
import * as Checked from "../Checked.js"

/** The duration strings of Effect, with the sign kept. */
const durationString = /^(-?\d+(?:\.\d+)?)\s+(nanos?|micros?|millis?|seconds?|minutes?|hours?|days?|weeks?)$/

/**
 * What is wrong with an input that is none of the forms a duration takes, phrased to follow "which".
 *
 * @since 1.0.0
 * @category messages
 */
export const notADuration = `is not a duration such as "30 seconds" or 30000 (ms)`

/**
 * What is wrong with a runtime's duration value that reads as zero without being the zero constant, phrased to follow
 * "which": a runtime that makes every negative or NaN duration the same zero leaves no other way to tell them apart.
 *
 * @since 1.0.0
 * @category messages
 */
export const ambiguousZero = "is a zero Duration, which is also what Effect makes of a negative or NaN one " +
  "(Duration.millis(-5)); write 0, \"0 millis\" or Duration.zero for zero"

/**
 * `ambiguousZero` for a runtime that keeps the sign of a negative duration and makes only a NaN one zero (Effect 4).
 *
 * @since 1.0.0
 * @category messages
 */
export const ambiguousNaNZero = "is a zero Duration, which is also what Effect makes of a NaN one " +
  "(Duration.millis(NaN)); write 0, \"0 millis\" or Duration.zero for zero"

const numberProblem = (input: number): string | undefined => {
  if (Number.isNaN(input)) return "is not a number"
  if (input < 0) return "is negative"
  if (!Number.isFinite(input)) return "is infinite"
  return undefined
}

const pairProblem = (input: ReadonlyArray<unknown>): string | undefined => {
  if (input.length !== 2 || !input.every((part) => typeof part === "number")) return notADuration
  const parts = input as ReadonlyArray<number>
  if (parts.some((part) => Number.isNaN(part))) return "is not a number"
  if (parts.some((part) => part < 0)) return "is negative"
  if (parts.some((part) => !Number.isFinite(part))) return "is infinite"
  return undefined
}

/**
 * Why `input`, in one of the plain forms, is not a finite, non-negative duration, phrased to follow "which" ("is
 * negative"), or `undefined` if it is one. Anything else (a runtime's duration value included) is `notADuration`:
 * the shell asks here only about what is not its runtime's own.
 *
 * @since 1.0.0
 * @category validation
 */
export const problem = (input: unknown): string | undefined => {
  if (typeof input === "number") return numberProblem(input)
  if (typeof input === "bigint") return input < 0n ? "is negative" : undefined
  if (typeof input === "string") {
    const match = durationString.exec(input)
    if (match === null) return notADuration
    return match[1]!.startsWith("-") ? "is negative" : undefined
  }
  if (Array.isArray(input)) return pairProblem(input)
  return notADuration
}

/**
 * How a runtime reads the exact milliseconds of a duration input: the milliseconds, or why it is not a finite,
 * non-negative duration, phrased to follow "which". The core rounds and bounds them as each option needs.
 *
 * @since 1.0.0
 * @category models
 */
export type ReadMillis<D> = (input: D) => Checked.Checked<number>

/**
 * A value as error messages quote it: strings in quotes (so that "" and " " are visible) and cut short when long,
 * bigints with their `n`, arrays item by item, anything else as its own `String` says.
 *
 * @since 1.0.0
 * @category messages
 */
export const describe = (value: unknown): string => {
  try {
    if (typeof value === "string") return JSON.stringify(value.length > 64 ? value.slice(0, 64) + "…" : value)
    if (typeof value === "bigint") return `${value}n`
    if (Array.isArray(value)) return `[${value.map(describe).join(", ")}]`
    return String(value)
  } catch {
    return typeof value
  }
}
