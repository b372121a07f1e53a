/**
 * The invariants about each use, lock or semaphore: it ends without a defect, stops writing once its lease is lost,
 * makes progress when nested in a use of its own name, and is refused exactly when its options are invalid.
 *
 * @since 1.0.0
 */
import * as BadOption from "../simulation/BadOption.js"
import type * as History from "../simulation/History.js"
import * as Schedule from "../simulation/Schedule.js"
import * as SectionRecord from "../simulation/SectionRecord.js"
import type * as WriteRecord from "../simulation/WriteRecord.js"
import { isPermitSection, label } from "./CriticalSection.js"
import type * as Invariant from "./Invariant.js"

/**
 * Uses that died, or never finished before the simulation's cap.
 *
 * @since 1.0.0
 * @category invariants
 */
export const noDefects = (history: History.History): Array<Invariant.Finding> => {
  const findings: Array<Invariant.Finding> = []
  for (const s of history.sections) {
    if (s.outcome === "defect") {
      findings.push({ invariant: "noDefects", message: `${label(s)} died: ${s.detail}` })
    } else if (s.outcome === "unfinished") {
      findings.push({ invariant: "noDefects", message: `${label(s)} never finished (simulation ran to its cap)` })
    }
  }
  return findings
}

/**
 * Writes after a loss, per writer (a section, or a child on its lease): the first ends the step that was in progress
 * when the loss was declared, since interruption lands at a step boundary; any later one ran on a lost lease.
 *
 * @since 1.0.0
 * @category invariants
 */
export const stopsWhenLost = (history: History.History): Array<Invariant.Finding> => {
  const findings: Array<Invariant.Finding> = []
  for (const s of history.sections) {
    const lostAt = s.lostAt
    if (lostAt === undefined) continue
    const byWriter = new Map<number, Array<WriteRecord.WriteRecord>>()
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

/**
 * Children (and any use) whose nested use waited on, or failed with, a lease of its own or one that had ended.
 *
 * @since 1.0.0
 * @category invariants
 */
export const reentryProgress = (history: History.History): Array<Invariant.Finding> => {
  const findings: Array<Invariant.Finding> = []
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

/**
 * Bystanders (the outer region's fiber around a detached worker, which takes no lock) that did not run to their end:
 * stopped before the horizon by a lease they never relied on, or by anything else.
 *
 * @since 1.0.0
 * @category invariants
 */
export const bystandersRun = (history: History.History): Array<Invariant.Finding> => {
  const findings: Array<Invariant.Finding> = []
  for (const s of history.sections) {
    if (s.api !== "bystander" || s.outcome === "completed") continue
    const at = s.finishedAt ?? Infinity
    if (at >= history.schedule.horizonMs) continue
    findings.push({
      invariant: "bystandersRun",
      message: `"${s.name}": the region around ${s.process}'s detached worker #${
        s.index - SectionRecord.indexOf("bystander", 0, history.schedule.sections.length)
      } relied on no lease, but ended ${s.outcome} at ${at}${
        s.detail === undefined ? "" : `: ${s.detail.split("\n")[0]}`
      }`
    })
  }
  return findings
}

/**
 * Uses run in a `Lock.scoped` region (a wrapped acquire's, on a lock) that ended interrupted before the horizon though
 * their lease was lost while they ran: the region fails with the loss's `LockLost`. A sibling job of a concurrent
 * `Effect.all` is left out: on Effect 3 it holds the lease it waited for itself, and the region sees its interruption.
 *
 * @since 1.0.0
 * @category invariants
 */
export const regionsFailWithLoss = (history: History.History): Array<Invariant.Finding> => {
  const findings: Array<Invariant.Finding> = []
  for (const s of history.sections) {
    if (s.parent !== undefined || s.lostAt === undefined || s.outcome !== "interrupted") continue
    const spec = history.schedule.sections[s.index]
    if (spec === undefined || spec.semaphore !== undefined || !Schedule.wrappedApis.includes(spec.api)) continue
    if (spec.region?.kind === "sibling" || (s.finishedAt ?? Infinity) >= history.schedule.horizonMs) continue
    findings.push({
      invariant: "regionsFailWithLoss",
      message: `"${s.name}": ${label(s)} ran in Lock.scoped and its lease was lost at ${s.lostAt} ` +
        `(${s.leaseStatus}), but it ended interrupted at ${s.finishedAt}, not with LockLost`
    })
  }
  return findings
}

/**
 * Planned sections with a bad option that were not refused, and sections with good options that were.
 *
 * @since 1.0.0
 * @category invariants
 */
export const badOptionsRefused = (history: History.History): Array<Invariant.Finding> => {
  const findings: Array<Invariant.Finding> = []
  for (const s of history.sections) {
    const spec = s.parent === undefined ? history.schedule.sections[s.index] : undefined
    const bad = spec?.badOption
    if (bad !== undefined) {
      const show = BadOption.describe(bad, history.schedule.timings).show
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
