/**
 * Seeded draws for schedule generators.
 *
 * @since 1.0.0
 */
import * as Fault from "./Fault.js"

/**
 * The fault kinds every class draws from. The late kinds are the `late` class's: drawn here, they would also change
 * every other class's schedules.
 *
 * @since 1.0.0
 * @category constants
 */
export const baseFaultKinds: ReadonlyArray<Fault.FaultKind> = Fault.kinds.filter((kind) => !Fault.isLate(kind))

/**
 * Draws from a seeded stream.
 *
 * @since 1.0.0
 * @category models
 */
export interface Draws {
  /** An integer in `[lo, hi]`. */
  readonly int: (lo: number, hi: number) => number
  /** One of `items`. */
  readonly pick: <A>(items: ReadonlyArray<A>) => A
}

/**
 * Draws of integers and of items from `next`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (next: () => number): Draws => ({
  int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
  pick: <A>(items: ReadonlyArray<A>): A => items[Math.floor(next() * items.length)]!
})
