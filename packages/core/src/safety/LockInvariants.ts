/**
 * The invariants of locks over a simulated history: critical sections of one name that never overlap, fences that
 * increase, a fenced resource that judges every write right, and reservations that keep a free lock no longer than
 * they may.
 *
 * @since 1.0.0
 */
import type * as History from "../simulation/History.js"
import type * as SectionRecord from "../simulation/SectionRecord.js"
import type * as WriteRecord from "../simulation/WriteRecord.js"
import { endOfSection, label } from "./CriticalSection.js"
import type * as Invariant from "./Invariant.js"

/**
 * Per name, in the order sections started: fences that do not increase, and critical sections that overlap (and, if
 * the earlier one had lost its lease, ran on past the next holder's start).
 *
 * @since 1.0.0
 * @category invariants
 */
export const orderAndExclusion = (
  history: History.History,
  acquired: ReadonlyArray<SectionRecord.SectionRecord>
): Array<Invariant.Finding> => {
  const findings: Array<Invariant.Finding> = []
  const endOf = endOfSection(history)
  const byName = new Map<string, Array<SectionRecord.SectionRecord>>()
  for (const s of acquired) {
    const list = byName.get(s.name) ?? []
    list.push(s)
    byName.set(s.name, list)
  }

  for (const [name, list] of byName) {
    list.sort((x, y) => x.start! - y.start! || x.fence! - y.fence!)
    for (let i = 0; i < list.length; i++) {
      const a = list[i]!
      if (i > 0 && list[i - 1]!.fence! >= a.fence!) {
        findings.push({
          invariant: "fenceOrder",
          message: `"${name}": ${label(a)} started at ${a.start} after ${label(list[i - 1]!)} with a fence not above it`
        })
      }
      for (let j = i + 1; j < list.length; j++) {
        const b = list[j]!
        if (b.start! < endOf(a) && a.start! < endOf(b)) {
          findings.push({
            invariant: "mutualExclusion",
            message: `"${name}": ${label(a)} [${a.start}, ${endOf(a)}] overlaps ${label(b)} [${b.start}, ${endOf(b)}]`
          })
          if (a.leaseStatus?.startsWith("Lost") === true && b.fence! > a.fence!) {
            findings.push({
              invariant: "interruptBeforeTakeover",
              message: `"${name}": ${label(a)} lost its lease (${a.leaseStatus}) but ran until ${endOf(a)}, after ${
                label(b)
              } started at ${b.start}`
            })
          }
        }
      }
    }
  }
  return findings
}

const show = (w: WriteRecord.WriteRecord) => `section #${w.section} wrote "${w.name}" with fence ${w.fence} at ${w.at}`

/**
 * Stale writes the fenced resource rejected, and any write it judged wrongly.
 *
 * @since 1.0.0
 * @category invariants
 */
export const fencedWrites = (history: History.History): Array<Invariant.Finding> => {
  const findings: Array<Invariant.Finding> = []
  const highest = new Map<string, number>()
  for (const w of history.writes) {
    // Holders of a semaphore write side by side: no fenced resource sees their writes.
    if (w.permits !== undefined) continue
    const before = highest.get(w.name)
    if (!w.accepted) {
      findings.push({
        invariant: "mutualExclusion",
        message:
          `"${w.name}": a stale write by section #${w.section} (fence ${w.fence}) at ${w.at}, after fence ${w.highestBefore} wrote: the fenced resource rejected it`
      })
      if (before === undefined || w.fence >= before) {
        findings.push({ invariant: "fencedResource", message: `rejected a write it should have accepted: ${show(w)}` })
      }
      continue
    }
    if (before !== undefined && w.fence < before) {
      findings.push({ invariant: "fencedResource", message: `accepted fence ${w.fence} after ${before}: ${show(w)}` })
    }
    highest.set(w.name, Math.max(before ?? -Infinity, w.fence))
  }
  return findings
}

/**
 * Acquires of a free lock that a reservation refused longer than its length plus the skew bound after it was made,
 * on the true timeline (or that a reservation nobody made refused).
 *
 * @since 1.0.0
 * @category invariants
 */
export const reservationBound = (history: History.History): Array<Invariant.Finding> => {
  const findings: Array<Invariant.Finding> = []
  const records = history.reservations ?? []
  const skew = history.schedule.timings.maxClockSkewMs
  for (const refusal of records) {
    if (refusal.kind !== "refused") continue
    const made = records.find((r) =>
      r.kind === "reserved" && r.name === refusal.name && r.owner === refusal.owner &&
      r.reservedUntil === refusal.reservedUntil && r.at <= refusal.at
    )
    const what = `"${refusal.name}": ${refusal.process}'s acquire of the free lock at ${refusal.at}`
    if (made === undefined) {
      findings.push({ invariant: "reservationBound", message: `${what} was refused by a reservation nobody made` })
    } else if (refusal.at > made.at + made.reserveMs + skew) {
      findings.push({
        invariant: "reservationBound",
        message: `${what} was refused by ${made.process}'s reservation of ${made.reserveMs} ms made at ${made.at}, ` +
          `past its end plus maxClockSkew (${skew} ms)`
      })
    }
  }
  return findings
}
