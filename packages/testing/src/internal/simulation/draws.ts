/**
 * Seeded draws for schedule generators.
 *
 * @internal
 */
import * as FaultyStore from "../../FaultyStore.js"

/**
 * The fault kinds every class draws from. The late kinds are the `late` class's: drawn here, they would also change
 * every other class's schedules.
 *
 * @internal
 */
export const baseFaultKinds: ReadonlyArray<FaultyStore.FaultKind> = FaultyStore.faultKinds.filter((kind) =>
  !FaultyStore.lateFaultKinds.includes(kind)
)

/**
 * A seeded draw of integers in `[lo, hi]` and of items, from `next`.
 *
 * @internal
 */
export const draws = (next: () => number) => ({
  int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
  pick: <A>(items: ReadonlyArray<A>): A => items[Math.floor(next() * items.length)]!
})
