/**
 * The invariants of semaphores over a simulated history: no more permits held at once than the limit, and fences
 * that order acquisitions.
 *
 * @since 1.0.0
 */
import type * as History from "../simulation/History.js"
import type * as SectionRecord from "../simulation/SectionRecord.js"
import { endOfSection } from "./CriticalSection.js"
import type * as Invariant from "./Invariant.js"

const label = (s: SectionRecord.SectionRecord) => `${s.process}#${s.index} (${s.permits} permits, fence ${s.fence})`

const byName = (sections: ReadonlyArray<SectionRecord.SectionRecord>) => {
  const names = new Map<string, Array<SectionRecord.SectionRecord>>()
  for (const s of sections) names.set(s.name, [...(names.get(s.name) ?? []), s])
  return names
}

/**
 * Per semaphore, every instant at which the critical sections running held more permits than the limit: checked at
 * each start, with sections that end at an instant no longer running at it, as for a lock's mutual exclusion. The
 * limit is the smallest the running sections asked with (every process uses the same one).
 *
 * @since 1.0.0
 * @category invariants
 */
export const permitLimit = (
  history: History.History,
  acquired: ReadonlyArray<SectionRecord.SectionRecord>
): Array<Invariant.Finding> => {
  const findings: Array<Invariant.Finding> = []
  const endOf = endOfSection(history)
  for (const [name, list] of byName(acquired)) {
    const starts = [...list].sort((x, y) => x.start! - y.start! || x.index - y.index)
    for (const s of starts) {
      const at = s.start!
      // A section runs at its own start; of the others that start at the same instant, those sorted before it.
      const running = list.filter((x) =>
        x === s || (x.start! <= at && at < endOf(x) && (x.start! < at || x.index < s.index))
      )
      const held = running.reduce((sum, x) => sum + x.permits!, 0)
      const limit = Math.min(...running.map((x) => x.limit ?? Infinity))
      if (held <= limit) continue
      const others = running.filter((x) => x !== s).map((x) => `${label(x)} [${x.start}, ${endOf(x)}]`)
      findings.push({
        invariant: "permitLimit",
        message: `semaphore "${name}" (limit ${limit}): ${held} permits held at ${at}, when ${label(s)} started ` +
          `while ${others.join(", ")} ran`
      })
    }
  }
  return findings
}

/**
 * Per semaphore: acquisitions with no fence or with the same fence, and pairs where one was called after the other
 * had acquired (so its write came later) but got a fence not above it.
 *
 * @since 1.0.0
 * @category invariants
 */
export const permitFences = (acquired: ReadonlyArray<SectionRecord.SectionRecord>): Array<Invariant.Finding> => {
  const findings: Array<Invariant.Finding> = []
  for (const [name, list] of byName(acquired)) {
    const seen = new Map<number, SectionRecord.SectionRecord>()
    for (const s of list) {
      if (s.fence === undefined) {
        findings.push({ invariant: "permitFences", message: `semaphore "${name}": ${label(s)} ran with no fence` })
        continue
      }
      const same = seen.get(s.fence)
      if (same !== undefined) {
        findings.push({
          invariant: "permitFences",
          message: `semaphore "${name}": ${label(s)} got the fence of ${label(same)}`
        })
      }
      seen.set(s.fence, s)
    }
    for (const a of list) {
      for (const b of list) {
        if (a.fence === undefined || b.fence === undefined || b.requestedAt === undefined) continue
        if (b.requestedAt > a.start! && b.fence <= a.fence) {
          findings.push({
            invariant: "permitFences",
            message: `semaphore "${name}": ${label(b)}, called at ${b.requestedAt}, after ${label(a)} had acquired ` +
              `at ${a.start}, got a fence not above it`
          })
        }
      }
    }
  }
  return findings
}
