/**
 * What an argument of options must be: a record of named options, or `undefined` where the options may be left out.
 * Code without types can pass anything, and reading the fields of `null`, an array or a string finds none: the call
 * would go on with the defaults (or fail with a defect) instead of telling its caller about the mistake. Every entry
 * point that takes options asks here before it reads a field.
 *
 * @since 1.0.0
 */
import * as DurationInput from "./DurationInput.js"
import * as OptionCheck from "./OptionCheck.js"

/**
 * The option a refusal names: the options argument as a whole.
 *
 * @since 1.0.0
 * @category constants
 */
export const option = "options"

/**
 * Whether the options of a call may be left out (`undefined`, for none) or must be given.
 *
 * @since 1.0.0
 * @category models
 */
export type Presence = "optional" | "required"

/**
 * Whether `input` is a record of named options: an object that is not `null` and not an array.
 *
 * @since 1.0.0
 * @category predicates
 */
export const isRecord = (input: unknown): input is object =>
  typeof input === "object" && input !== null && !Array.isArray(input)

/** What a refused argument was, in words: a long array or a function's source would not help in a message. */
const shown = (input: unknown): string => {
  if (Array.isArray(input)) return "an array"
  if (typeof input === "function") return "a function"
  return DurationInput.describe(input)
}

/**
 * Why `input` can not be the options argument `what` ("options", or e.g. "the app-wide defaults"), or `undefined` if
 * it can.
 *
 * @since 1.0.0
 * @category messages
 */
export const problem = (input: unknown, presence: Presence, what: string = option): string | undefined => {
  if (isRecord(input) || (presence === "optional" && input === undefined)) return undefined
  const allowed = presence === "optional"
    ? "a record of named options, or undefined for none"
    : "a record of named options"
  return `${what} must be ${allowed}; got ${shown(input)}`
}

/**
 * `input` checked to be the options argument `what`: the same value, or a refusal that names the option "options".
 *
 * @since 1.0.0
 * @category validation
 */
export const check = <A>(input: A, presence: Presence, what: string = option): OptionCheck.OptionCheck<A> => {
  const found = problem(input, presence, what)
  return found === undefined ? OptionCheck.ok(input) : OptionCheck.invalid(option, found)
}
