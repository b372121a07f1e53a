/**
 * What a run records of each write a section makes: the public `Simulation.WriteRecord`.
 *
 * @internal
 */

/** @internal */
export interface WriteRecord {
  readonly at: number
  readonly name: string
  readonly fence: number
  /** The section whose critical section the write belongs to (a child on a borrowed lease writes for its parent). */
  readonly section: number
  /** The use that wrote, when not `section` itself: a child. */
  readonly by?: number | undefined
  /** Whether the fenced resource accepted it; always for a write under permits, which it does not see. */
  readonly accepted: boolean
  /** The highest fence the resource had seen for this name before the write. */
  readonly highestBefore: number | undefined
  /** The permits of a semaphore the write was made under; absent for a write under a lock. */
  readonly permits?: number | undefined
}
