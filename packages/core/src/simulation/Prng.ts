/**
 * A small seeded PRNG (mulberry32): schedules and fault plans must replay exactly from a seed, whatever the runtime.
 *
 * @since 1.0.0
 */

/**
 * A stream of numbers in `[0, 1)` from `seed`: the same seed always gives the same stream.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (seed: number): () => number => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6D2B79F5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
