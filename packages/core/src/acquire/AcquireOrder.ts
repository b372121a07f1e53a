/**
 * The one order in which several locks are taken together. Every process that asks for overlapping sets of locks
 * takes the locks they share in the same order, so no two of them ever wait on each other in a cycle: one of any two
 * asks first for a lock that the other holds, and the other holds nothing the first still needs. The order is that
 * of the names' UTF-16 code units, which every JavaScript process compares alike; a name given twice is taken once.
 *
 * @since 1.0.0
 */

/**
 * `names` without repeats, in the order in which they are taken.
 *
 * @since 1.0.0
 * @category constructors
 */
export const order = (names: Iterable<string>): ReadonlyArray<string> => [...new Set(names)].sort()

/**
 * What is wrong with `names` as a set of locks to take together, or `undefined`: it must be an iterable of strings with
 * at least one name. Each name is checked as any lock name is, when it is taken.
 *
 * @since 1.0.0
 * @category validation
 */
export const namesProblem = (names: unknown): string | undefined => {
  if (typeof names === "string" || names === null || typeof names !== "object" || !(Symbol.iterator in names)) {
    return `the names of the locks to take together must be an array (or another iterable) of strings; got ${
      typeof names === "string" ? "a string" : names === null ? "null" : typeof names
    }`
  }
  const list = [...(names as Iterable<unknown>)]
  if (list.length === 0) return "the names of the locks to take together must not be empty"
  const notString = list.find((name) => typeof name !== "string")
  return notString === undefined ? undefined : `a lock name must be a string; got ${typeof notString}`
}

/**
 * Ms left of a wait that ends at `waitUntil` (monotonic ms; `Infinity`: none), at `now`: what the next lock of the set
 * may still wait. Never below 0: a lock free at once is still taken when the wait is over.
 *
 * @since 1.0.0
 * @category constructors
 */
export const waitLeftMs = (waitUntil: number, now: number): number => Math.max(0, waitUntil - now)
