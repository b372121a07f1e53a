/**
 * What makes a name unusable as a key of a store that keys names by their UTF-8 bytes (the memory store): the check
 * behind its refusals (a `LockStoreError`, as DynamoDB refuses such a key) and its `nameProblem`, which `Lock` asks
 * before any store call.
 *
 * @internal
 */
import * as Utf8 from "../Utf8.js"

/** @internal */
export type Problem =
  | { readonly _tag: "Empty" }
  | { readonly _tag: "NotWellFormed" }
  | { readonly _tag: "TooLong"; readonly bytes: number }

const empty: Problem = { _tag: "Empty" }
const notWellFormed: Problem = { _tag: "NotWellFormed" }

/**
 * Why `name` can not be a key of at most `maxNameBytes` UTF-8 bytes, or `undefined` if it can.
 *
 * @internal
 */
export const problem = (name: string, maxNameBytes: number): Problem | undefined => {
  if (name.length === 0) return empty
  if (!Utf8.isWellFormed(name)) return notWellFormed
  if (!Utf8.fits(name, maxNameBytes)) return { _tag: "TooLong", bytes: Utf8.byteLength(name) }
  return undefined
}

/** A name as messages quote it: its first 40 characters (whole code points), so that a huge name stays readable. */
const quote = (name: string): string => {
  const points = Array.from(name)
  return JSON.stringify(points.length > 40 ? points.slice(0, 40).join("") + "…" : name)
}

/**
 * Why `name` can not be a `kind` name of at most `maxNameBytes` UTF-8 bytes, as a sentence, or `undefined` if it can.
 *
 * @internal
 */
export const describe = (name: string, maxNameBytes: number, kind: "lock" | "semaphore"): string | undefined => {
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
