/**
 * The downstream store a simulation's sections write to, which refuses writes with a fence below one it has seen; and
 * the one behind a read/write lock, which its writers write and its readers read.
 *
 * @since 1.0.0
 */
import type * as ReadWriteMode from "../record/ReadWriteMode.js"

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

/**
 * A downstream store behind a read/write lock, as `ReadWriteLock` asks users to put one: it keeps the highest fence it
 * has seen from a writer, and refuses a write or a read with a lower one (its holder acquired the lock before the
 * writer the store last saw). Readers do not raise it: readers share the lock, so their fences order nothing among
 * them.
 *
 * @since 1.0.0
 * @category models
 */
export interface ReadWriteResource {
  /** A write (`mode` `"write"`) or a read (`"read"`) of `name` with `fence`; `highestBefore` is a writer's fence. */
  readonly access: (
    name: string,
    fence: number,
    mode: ReadWriteMode.Mode
  ) => { readonly accepted: boolean; readonly highestBefore?: number }
}

/**
 * A read/write lock's downstream store that has seen no write.
 *
 * @since 1.0.0
 * @category constructors
 */
export const makeReadWrite = (): ReadWriteResource => {
  const written = new Map<string, number>()
  return {
    access: (name, fence, mode) => {
      const before = written.get(name)
      if (before !== undefined && fence < before) return { accepted: false, highestBefore: before }
      if (mode === "write") written.set(name, fence)
      return before === undefined ? { accepted: true } : { accepted: true, highestBefore: before }
    }
  }
}
