/**
 * The invariants over a simulated history, and which of them a schedule's class promises.
 *
 * @internal
 */
import type * as SafetyChecker from "../../SafetyChecker.js"
import * as Simulation from "../../Simulation.js"
import { endOfSection, isPermitSection } from "./criticalSection.js"
import { permitFences, permitLimit } from "./permitInvariants.js"

/** @internal */
export const invariants: ReadonlyArray<SafetyChecker.Invariant> = [
  "mutualExclusion",
  "fenceOrder",
  "interruptBeforeTakeover",
  "fencedResource",
  "noDefects",
  "stopsWhenLost",
  "reentryProgress",
  "badOptionsRefused",
  "reservationBound",
  "permitLimit",
  "permitFences"
]

/** Hold in every class: they rely on no assumption about clocks, pauses or operators. */
const unconditional: ReadonlyArray<SafetyChecker.Invariant> = [
  "fencedResource",
  "noDefects",
  "stopsWhenLost",
  "reentryProgress",
  "badOptionsRefused",
  "permitFences"
]

/** @internal */
export const expectedInvariants = (schedule: Simulation.Schedule): ReadonlyArray<SafetyChecker.Invariant> => {
  switch (schedule.mode) {
    case "safe":
    case "wrapped":
    case "reentry":
    case "badOptions":
    case "handOff":
    case "semaphore":
    case "late":
      return invariants
    case "skew":
    case "clockStep":
      return schedule.takeover === "observed" ? invariants : unconditional
    case "longPause":
      return unconditional
    case "steal":
      // A force release clears a lock, never a semaphore's permits.
      return [...unconditional, "fenceOrder", "reservationBound", "permitLimit"]
  }
}

const label = (s: Simulation.SectionRecord) =>
  `${s.process}#${s.index} (${s.parent === undefined ? "" : `child of #${s.parent}, `}fence ${s.fence})`

/**
 * Per name, in the order sections started: fences that do not increase, and critical sections that overlap (and, if
 * the earlier one had lost its lease, ran on past the next holder's start).
 */
const orderAndExclusion = (
  history: Simulation.History,
  acquired: ReadonlyArray<Simulation.SectionRecord>
): Array<SafetyChecker.Finding> => {
  const findings: Array<SafetyChecker.Finding> = []
  const endOf = endOfSection(history)
  const byName = new Map<string, Array<Simulation.SectionRecord>>()
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

/** Stale writes the fenced resource rejected, and any write it judged wrongly. */
const fencedWrites = (history: Simulation.History): Array<SafetyChecker.Finding> => {
  const findings: Array<SafetyChecker.Finding> = []
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

/** Uses that died, or never finished before the simulation's cap. */
const noDefects = (history: Simulation.History): Array<SafetyChecker.Finding> => {
  const findings: Array<SafetyChecker.Finding> = []
  for (const s of history.sections) {
    if (s.outcome === "defect") {
      findings.push({ invariant: "noDefects", message: `${label(s)} died: ${s.detail}` })
    } else if (s.outcome === "unfinished") {
      findings.push({ invariant: "noDefects", message: `${label(s)} never finished (simulation ran to its cap)` })
    }
  }
  return findings
}

/** @internal */
export const check = (history: Simulation.History): SafetyChecker.Report => {
  // A child on a borrowed lease is part of its parent's critical section, not one of its own.
  const acquired = history.sections.filter((s) => s.start !== undefined && s.borrowedFrom === undefined)
  // A lock and a semaphore of one name are two things: each has its own invariants.
  const permitHolders = acquired.filter(isPermitSection)
  const findings = [
    ...orderAndExclusion(history, acquired.filter((s) => !isPermitSection(s))),
    ...permitLimit(history, permitHolders),
    ...permitFences(permitHolders),
    ...fencedWrites(history),
    ...noDefects(history),
    ...stopsWhenLost(history),
    ...reentryProgress(history),
    ...badOptionsRefused(history),
    ...reservationBound(history)
  ]
  const expected = expectedInvariants(history.schedule)
  return {
    history,
    expected,
    violations: findings.filter((f) => expected.includes(f.invariant)),
    anomalies: findings.filter((f) => !expected.includes(f.invariant)),
    sections: acquired.length,
    staleWritesRejected: history.writes.filter((w) => !w.accepted).length
  }
}

/**
 * Writes after a loss, per writer (a section, or a child on its lease): the first ends the step that was in progress
 * when the loss was declared, since interruption lands at a step boundary; any later one ran on a lost lease.
 */
const stopsWhenLost = (history: Simulation.History): Array<SafetyChecker.Finding> => {
  const findings: Array<SafetyChecker.Finding> = []
  for (const s of history.sections) {
    const lostAt = s.lostAt
    if (lostAt === undefined) continue
    const byWriter = new Map<number, Array<Simulation.WriteRecord>>()
    for (const w of history.writes) {
      if (w.section !== s.index || w.at <= lostAt) continue
      const writer = w.by ?? w.section
      byWriter.set(writer, [...(byWriter.get(writer) ?? []), w])
    }
    for (const [writer, after] of byWriter) {
      if (after.length < 2) continue
      const who = writer === s.index ? label(s) : `child #${writer} on the lease of ${label(s)}`
      findings.push({
        invariant: "stopsWhenLost",
        message: `"${s.name}": ${who} knew at ${lostAt} that the lease was lost (${s.leaseStatus}) but wrote ` +
          `${after.length - 1} more time(s) after the step in progress, the last at ${after[after.length - 1]!.at}`
      })
    }
  }
  return findings
}

/** Children (and any use) whose nested use waited on, or failed with, a lease of its own or one that had ended. */
const reentryProgress = (history: Simulation.History): Array<SafetyChecker.Finding> => {
  const findings: Array<SafetyChecker.Finding> = []
  for (const s of history.sections) {
    const what = `${s.outcome}${s.detail === undefined ? "" : `: ${s.detail.split("\n")[0]}`}`
    // Cut off with the lease it borrowed, as a re-entered section must be.
    const cutOffByRelease = s.outcome === "lost" && s.lostReason === "released"
    if (s.outerEnteredAt !== undefined && s.start === undefined && !cutOffByRelease) {
      findings.push({
        invariant: "reentryProgress",
        message: `"${s.name}": ${label(s)} held the lock from ${s.outerEnteredAt} but its nested use of the same ` +
          `name never ran (${what})`
      })
      continue
    }
    if (s.outcome !== "lost" || cutOffByRelease || s.lostFence === undefined || s.lostFence === s.fence) continue
    const requestedAt = s.requestedAt ?? -Infinity
    const ended = history.sections.find((x) =>
      x !== s && x.name === s.name && isPermitSection(x) === isPermitSection(s) && x.fence === s.lostFence &&
      x.borrowedFrom === undefined &&
      (x.end ?? x.finishedAt ?? Infinity) <= requestedAt
    )
    if (ended !== undefined) {
      findings.push({
        invariant: "reentryProgress",
        message: `"${s.name}": ${label(s)}, called at ${requestedAt}, failed with the loss of ${label(ended)}, ` +
          `whose section had ended at ${ended.end ?? ended.finishedAt} (${what})`
      })
    }
  }
  return findings
}

/** Planned sections with a bad option that were not refused, and sections with good options that were. */
const badOptionsRefused = (history: Simulation.History): Array<SafetyChecker.Finding> => {
  const findings: Array<SafetyChecker.Finding> = []
  for (const s of history.sections) {
    const spec = s.parent === undefined ? history.schedule.sections[s.index] : undefined
    const bad = spec?.badOption
    if (bad !== undefined) {
      const show = Simulation.badOptionValue(bad, history.schedule.timings).show
      if (s.start !== undefined) {
        findings.push({
          invariant: "badOptionsRefused",
          message: `"${s.name}": ${label(s)} had ${show} but ran its section from ${s.start} (${s.outcome})`
        })
      } else if (s.outcome !== "configError") {
        findings.push({
          invariant: "badOptionsRefused",
          message: `"${s.name}": ${label(s)} had ${show} but ended ${s.outcome}, not with LockConfigError`
        })
      }
    } else if (s.outcome === "configError") {
      findings.push({ invariant: "badOptionsRefused", message: `${label(s)} was refused valid options: ${s.detail}` })
    }
  }
  return findings
}

/**
 * Acquires of a free lock that a reservation refused longer than its length plus the skew bound after it was made,
 * on the true timeline (or that a reservation nobody made refused).
 */
const reservationBound = (history: Simulation.History): Array<SafetyChecker.Finding> => {
  const findings: Array<SafetyChecker.Finding> = []
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

const show = (w: Simulation.WriteRecord) => `section #${w.section} wrote "${w.name}" with fence ${w.fence} at ${w.at}`

/**
 * Runs and checks one schedule.
 *
 * @internal
 */
export const checkSchedule = (schedule: Simulation.Schedule): SafetyChecker.Report => check(Simulation.run(schedule))
