/**
 * When a critical section ran on the true timeline, one notion for every invariant about overlaps: from its start
 * until it ended, and until its last write, which a child may make after it ended. A section that never ended runs
 * on forever.
 *
 * @internal
 */
import type * as Simulation from "../../Simulation.js"

/**
 * The end of each section's critical section in `history`.
 *
 * @internal
 */
export const endOfSection = (history: Simulation.History): (s: Simulation.SectionRecord) => number => {
  const lastWrite = new Map<number, number>()
  for (const w of history.writes) lastWrite.set(w.section, Math.max(lastWrite.get(w.section) ?? -Infinity, w.at))
  return (s) => Math.max(s.end ?? Infinity, lastWrite.get(s.index) ?? -Infinity)
}

/**
 * Whether `s` used a semaphore's permits rather than a lock.
 *
 * @internal
 */
export const isPermitSection = (s: Simulation.SectionRecord): boolean => s.permits !== undefined
