/**
 * The downstream store a simulation's sections write to, which refuses writes with a fence below one it has seen.
 *
 * @since 1.0.0
 */

/**
 * A downstream store that accepts a write only if its fence is at least the highest it has seen for the name: what
 * the README asks users to put behind their locks.
 *
 * @since 1.0.0
 * @category models
 */
export interface FencedResource {
  readonly write: (name: string, fence: number) => { readonly accepted: boolean; readonly highestBefore?: number }
}

/**
 * A fenced resource that has seen no write.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (): FencedResource => {
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
