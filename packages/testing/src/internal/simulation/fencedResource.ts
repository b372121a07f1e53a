/**
 * The downstream store a simulation's sections write to, which refuses writes with a fence below one it has seen.
 *
 * @internal
 */
import type * as Simulation from "../../Simulation.js"

/** @internal */
export const makeFencedResource = (): Simulation.FencedResource => {
  const highest = new Map<string, number>()
  return {
    write: (name, fence) => {
      const before = highest.get(name)
      if (before !== undefined && fence < before) return { accepted: false, highestBefore: before }
      highest.set(name, fence)
      return before === undefined ? { accepted: true } : { accepted: true, highestBefore: before }
    }
  }
}
