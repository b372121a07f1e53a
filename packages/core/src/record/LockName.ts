/**
 * What makes a lock or semaphore name unusable: not a string at all, and, for a store that keys names by their UTF-8
 * bytes (the memory store), what its key can not hold. A store's refusals (as DynamoDB refuses such a key) and its
 * `nameProblem`, which a lock asks before any store call, are built on these.
 *
 * @since 1.0.0
 */
import * as DurationInput from "../options/DurationInput.js"
import type * as OptionCheck from "../options/OptionCheck.js"
import * as Utf8 from "./Utf8.js"

/**
 * Which names a message is about.
 *
 * @since 1.0.0
 * @category models
 */
export type Kind = "lock" | "semaphore"

/**
 * Why a name can not be a key of a store that keys names by their UTF-8 bytes.
 *
 * @since 1.0.0
 * @category models
 */
export type Problem =
  | { readonly _tag: "Empty" }
  | { readonly _tag: "NotWellFormed" }
  | { readonly _tag: "TooLong"; readonly bytes: number }

const empty: Problem = { _tag: "Empty" }
const notWellFormed: Problem = { _tag: "NotWellFormed" }

/**
 * Why `name` can not be a key of at most `maxNameBytes` UTF-8 bytes, or `undefined` if it can.
 *
 * @since 1.0.0
 * @category validation
 */
export const problem = (name: string, maxNameBytes: number): Problem | undefined => {
  if (name.length === 0) return empty
  if (!Utf8.isWellFormed(name)) return notWellFormed
  if (!Utf8.fits(name, maxNameBytes)) return { _tag: "TooLong", bytes: Utf8.byteLength(name) }
  return undefined
}

/** The most characters of a name a message quotes: a huge name stays readable. */
const quotedPoints = 40

/**
 * A name as messages quote it: its first characters (whole code points), so that a huge name stays readable.
 *
 * @since 1.0.0
 * @category messages
 */
export const quote = (name: string): string => {
  const points = Array.from(name)
  return JSON.stringify(points.length > quotedPoints ? points.slice(0, quotedPoints).join("") + "…" : name)
}

/**
 * Why `name` can not be a `kind` name of at most `maxNameBytes` UTF-8 bytes, as a sentence, or `undefined` if it can.
 *
 * @since 1.0.0
 * @category messages
 */
export const describe = (name: string, maxNameBytes: number, kind: Kind): string | undefined => {
  const found = problem(name, maxNameBytes)
  if (found === undefined) return undefined
  switch (found._tag) {
    case "Empty":
      return `a ${kind} name must not be empty; use a non-empty name`
    case "NotWellFormed":
      return `${kind} name ${quote(name)} is not well-formed Unicode (it holds a lone surrogate), so it has no UTF-8 ` +
        `form and two such names could become one key; use a well-formed string`
    case "TooLong":
      return `${kind} name ${quote(name)} is ${found.bytes} UTF-8 bytes, over this store's limit of ${maxNameBytes}` +
        `${kind === "semaphore" ? " (a byte less than a lock name's)" : ""}; use a shorter name`
  }
}

/**
 * A name as a caller passes it, checked: a string, then whatever the store's judge (`nameProblem`, which counts
 * what its key encoding adds) says of it. A refusal names the option "name".
 *
 * @since 1.0.0
 * @category validation
 */
export const check = (
  name: unknown,
  kind: Kind,
  nameProblem: (name: string) => string | undefined
): OptionCheck.OptionCheck<string> => {
  if (typeof name !== "string") {
    return {
      _tag: "Invalid",
      option: "name",
      message: `a ${kind} name must be a non-empty string; got ${DurationInput.describe(name)}`
    }
  }
  const found = nameProblem(name)
  return found === undefined ? { _tag: "Ok", value: name } : { _tag: "Invalid", option: "name", message: found }
}
