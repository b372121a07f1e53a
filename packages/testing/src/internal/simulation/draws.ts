/**
 * Seeded draws for schedule generators.
 *
 * @internal
 */

/**
 * A seeded draw of integers in `[lo, hi]` and of items, from `next`.
 *
 * @internal
 */
export const draws = (next: () => number) => ({
  int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
  pick: <A>(items: ReadonlyArray<A>): A => items[Math.floor(next() * items.length)]!
})
