/**
 * When a critical section ran on the true timeline, one notion for every invariant about overlaps: from its start
 * until it ended, and until its last write, which a child may make after it ended. A section that never ended runs
 * on forever.
 *
 * @since 1.0.0
 */
import type * as History from "../simulation/History.js"
import type * as SectionRecord from "../simulation/SectionRecord.js"

/**
 * The end of each section's critical section in `history`.
 *
 * @since 1.0.0
 * @category sections
 */
export const endOfSection = (history: History.History): (s: SectionRecord.SectionRecord) => number => {
  const lastWrite = new Map<number, number>()
  for (const w of history.writes) lastWrite.set(w.section, Math.max(lastWrite.get(w.section) ?? -Infinity, w.at))
  return (s) => Math.max(s.end ?? Infinity, lastWrite.get(s.index) ?? -Infinity)
}

/**
 * Whether `s` used a semaphore's permits rather than a lock.
 *
 * @since 1.0.0
 * @category sections
 */
export const isPermitSection = (s: SectionRecord.SectionRecord): boolean => s.permits !== undefined

/**
 * A section under a lock as findings name it: its process, index, parent if a child, and fence.
 *
 * @since 1.0.0
 * @category sections
 */
export const label = (s: SectionRecord.SectionRecord): string =>
  `${s.process}#${s.index} (${s.parent === undefined ? "" : `child of #${s.parent}, `}fence ${s.fence})`
