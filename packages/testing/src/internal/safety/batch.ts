/**
 * Seeded batches: run and check many schedules, tally what each class saw, shrink the failures.
 *
 * @internal
 */
import * as FaultyStore from "../../FaultyStore.js"
import type * as SafetyChecker from "../../SafetyChecker.js"
import * as Simulation from "../../Simulation.js"
import { checkSchedule } from "./invariants.js"
import { shrink } from "./shrink.js"

/** @internal */
export const failsLike = (report: SafetyChecker.Report) => (schedule: Simulation.Schedule): boolean => {
  const first = report.violations[0]
  if (first === undefined) return false
  return checkSchedule(schedule).violations.some((v) => v.invariant === first.invariant)
}

type MutableLateTally = { -readonly [K in keyof SafetyChecker.LateTally]: number }

type MutableClassSummary =
  & {
    -readonly [K in Exclude<keyof SafetyChecker.ClassSummary, "lateOnLocks" | "lateOnSemaphores">]:
      SafetyChecker.ClassSummary[K]
  }
  & {
    failingSeeds: Array<number>
    lateOnLocks: MutableLateTally
    lateOnSemaphores: MutableLateTally
  }

const emptyLate = (): MutableLateTally => ({
  delivered: 0,
  afterLaterWrite: 0,
  afterGiveBack: 0,
  afterAcquired: 0,
  afterRelease: 0
})

const tallyLate = (tally: MutableClassSummary, deliveries: ReadonlyArray<Simulation.DeliveryRecord>) => {
  for (const d of deliveries) {
    const late = d.semaphore ? tally.lateOnSemaphores : tally.lateOnLocks
    late.delivered++
    if (d.after.includes("laterWrite")) late.afterLaterWrite++
    if (d.after.includes("giveBack")) late.afterGiveBack++
    if (d.after.includes("acquired")) late.afterAcquired++
    if (d.after.includes("released")) late.afterRelease++
  }
}

const emptyClass = (): MutableClassSummary => ({
  schedules: 0,
  sections: 0,
  writes: 0,
  faults: 0,
  pauses: 0,
  steals: 0,
  stealsPlanned: 0,
  clockSteps: 0,
  children: 0,
  childrenBorrowing: 0,
  badOptions: 0,
  permitSections: 0,
  permitTakeovers: 0,
  lateOnLocks: emptyLate(),
  lateOnSemaphores: emptyLate(),
  failed: 0,
  violations: {},
  anomalies: {},
  failingSeeds: []
})

const tallyClass = (tally: MutableClassSummary, report: SafetyChecker.Report) => {
  const { history } = report
  const schedule = history.schedule
  tally.schedules++
  tally.sections += report.sections
  tally.writes += history.writes.length
  tally.faults += history.faults.length
  for (const p of schedule.processes) {
    tally.pauses += p.pauses.length
    tally.clockSteps += p.clockSteps?.length ?? 0
  }
  tally.stealsPlanned += schedule.steals?.length ?? 0
  tally.steals += history.steals?.filter((x) => x.fence !== undefined).length ?? 0
  for (const s of history.sections) {
    if (s.parent !== undefined) tally.children++
    if (s.borrowedFrom !== undefined) tally.childrenBorrowing++
    if (s.permits !== undefined && s.start !== undefined) tally.permitSections++
    if ((s.tookOver ?? 0) > 0) tally.permitTakeovers++
  }
  tally.badOptions += schedule.sections.filter((s) => s.badOption !== undefined).length
  tallyLate(tally, history.deliveries ?? [])
  for (const invariant of new Set(report.violations.map((v) => v.invariant))) {
    tally.violations[invariant] = (tally.violations[invariant] ?? 0) + 1
  }
  for (const invariant of new Set(report.anomalies.map((v) => v.invariant))) {
    tally.anomalies[invariant] = (tally.anomalies[invariant] ?? 0) + 1
  }
  if (report.violations.length > 0) {
    tally.failed++
    if (tally.failingSeeds.length < 10) tally.failingSeeds.push(schedule.seed)
  }
}

/** @internal */
export const runMany = (options: Parameters<typeof SafetyChecker.runMany>[0]): SafetyChecker.Summary => {
  const started = Date.now()
  const faultsByKind = {} as Record<FaultyStore.FaultKind, number>
  for (const kind of FaultyStore.faultKinds) faultsByKind[kind] = 0
  const byMode: Record<string, number> = {}
  const byClass: Partial<Record<Simulation.Mode, MutableClassSummary>> = {}
  const anomalies: Record<string, Partial<Record<SafetyChecker.Invariant, number>>> = {}
  const failures: Array<SafetyChecker.FailedSeed> = []
  let sections = 0
  let writes = 0
  let stale = 0
  let pauses = 0
  for (let i = 0; i < options.count; i++) {
    const seed = options.from + i
    const schedule = Simulation.generate(seed, { mode: options.mode })
    const report = checkSchedule(schedule)
    const key = `${schedule.mode}/${schedule.takeover}`
    byMode[key] = (byMode[key] ?? 0) + 1
    sections += report.sections
    writes += report.history.writes.length
    stale += report.staleWritesRejected
    for (const p of schedule.processes) pauses += p.pauses.length
    for (const f of report.history.faults) faultsByKind[f.fault.kind]++
    const broken = new Set(report.anomalies.map((a) => a.invariant))
    const tally = anomalies[key] ?? {}
    for (const invariant of broken) tally[invariant] = (tally[invariant] ?? 0) + 1
    anomalies[key] = tally
    tallyClass(byClass[schedule.mode] ??= emptyClass(), report)
    if (report.violations.length > 0) {
      const shrinks = options.shrink !== false && failures.length < (options.maxShrinks ?? Infinity)
      const shrunk = shrinks ? checkSchedule(shrink(schedule, failsLike(report))) : report
      failures.push({ seed, mode: schedule.mode, violations: report.violations, shrunk })
    }
    options.onProgress?.(i + 1)
  }
  return {
    schedules: options.count,
    byMode,
    byClass,
    sections,
    writes,
    staleWritesRejected: stale,
    faultsByKind,
    pauses,
    anomalies,
    failures,
    elapsedMs: Date.now() - started
  }
}
