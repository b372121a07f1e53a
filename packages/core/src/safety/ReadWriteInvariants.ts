/**
 * The invariants of read/write locks (`ReadWriteLock`) over a simulated history: a writer holds its name alone, and
 * fences order each writer after everyone before it and each reader after the writers before it.
 *
 * They are judged as a lock's are (`LockInvariants`): on the sections that ran holding the lock (those that got it;
 * one that waited and gave up ran nothing), each from its start until it ended or made its last write
 * (`CriticalSection.endOfSection`), so that a section interrupted by the loss of its lease runs until the interruption
 * landed, not until its use returned; and by what the resource behind the lock made of their writes and reads
 * (`FencedResource.makeReadWrite`), at the true time each was made. Readers beside readers are the lock's purpose,
 * and nothing orders them.
 *
 * @since 1.0.0
 */
import type * as History from "../simulation/History.js"
import type * as SectionRecord from "../simulation/SectionRecord.js"
import { endOfSection } from "./CriticalSection.js"
import type * as Invariant from "./Invariant.js"

const label = (s: SectionRecord.SectionRecord) =>
  `${s.mode === "write" ? "writer" : "reader"} ${s.process}#${s.index} (fence ${s.fence})`

/** The sections that ran under a read/write lock, by name. */
const byName = (acquired: ReadonlyArray<SectionRecord.SectionRecord>) => {
  const names = new Map<string, Array<SectionRecord.SectionRecord>>()
  for (const s of acquired) {
    if (s.mode === undefined || s.start === undefined) continue
    names.set(s.name, [...(names.get(s.name) ?? []), s])
  }
  return names
}

/**
 * Per read/write lock: a writer whose critical section overlapped another section of the name, a writer's or a
 * reader's, on the true timeline (a section that ends at an instant no longer runs at it); and every write or read
 * the resource behind the lock refused, made by a holder that acquired before the last writer it had seen.
 *
 * @since 1.0.0
 * @category invariants
 */
export const readWriteExclusion = (
  history: History.History,
  acquired: ReadonlyArray<SectionRecord.SectionRecord>
): Array<Invariant.Finding> => {
  const findings: Array<Invariant.Finding> = []
  const endOf = endOfSection(history)
  const ran = (s: SectionRecord.SectionRecord) => `${label(s)} [${s.start}, ${endOf(s)}]`
  for (const [name, list] of byName(acquired)) {
    const sorted = [...list].sort((x, y) => x.start! - y.start! || x.index - y.index)
    for (let i = 0; i < sorted.length; i++) {
      const a = sorted[i]!
      for (let j = i + 1; j < sorted.length; j++) {
        const b = sorted[j]!
        if (a.mode !== "write" && b.mode !== "write") continue
        if (b.start! < endOf(a) && a.start! < endOf(b)) {
          findings.push({
            invariant: "readWriteExclusion",
            message: `read/write lock "${name}": ${ran(a)} overlaps ${ran(b)}`
          })
        }
      }
    }
  }
  for (const w of history.writes) {
    if (w.mode === undefined || w.accepted) continue
    findings.push({
      invariant: "readWriteExclusion",
      message:
        `read/write lock "${w.name}": a stale ${w.mode} by section #${w.section} (fence ${w.fence}) at ${w.at}, ` +
        `after a writer with fence ${w.highestBefore}: the resource behind the lock refused it`
    })
  }
  return findings
}

/**
 * Per read/write lock, for each section and each one of the name that started before it: a writer whose fence is not
 * above the earlier section's, whatever its mode, and a reader whose fence is not above an earlier writer's.
 *
 * @since 1.0.0
 * @category invariants
 */
export const readWriteFences = (acquired: ReadonlyArray<SectionRecord.SectionRecord>): Array<Invariant.Finding> => {
  const findings: Array<Invariant.Finding> = []
  for (const [name, list] of byName(acquired)) {
    for (const later of list) {
      for (const earlier of list) {
        if (earlier.start! >= later.start! || (earlier.mode !== "write" && later.mode !== "write")) continue
        // A section without a fence is `permitFences`' to report.
        if (earlier.fence === undefined || later.fence === undefined || earlier.fence < later.fence) continue
        findings.push({
          invariant: "readWriteFences",
          message: `read/write lock "${name}": ${label(later)} started at ${later.start} with a fence not above that ` +
            `of ${label(earlier)}, which started at ${earlier.start}`
        })
      }
    }
  }
  return findings
}
