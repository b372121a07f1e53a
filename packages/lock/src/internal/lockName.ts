/**
 * What makes a lock name unusable as a key: the one check behind both `Lock`'s refusal (a `LockConfigError`, before
 * any store call) and the memory store's (a `LockStoreError`, as DynamoDB refuses such a key).
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
