/**
 * Seeded batches: run and check many schedules, tally what each class saw, shrink the failures.
 *
 * @since 1.0.0
 */
import * as Fault from "../simulation/Fault.js"
import * as Generate from "../simulation/Generate.js"
import type * as History from "../simulation/History.js"
import type * as Schedule from "../simulation/Schedule.js"
import type * as Invariant from "./Invariant.js"
import * as Report from "./Report.js"
import * as Shrink from "./Shrink.js"
import * as Tally from "./Tally.js"

/**
 * A seed whose schedule broke what its class promises.
 *
 * @since 1.0.0
 * @category models
 */
export interface FailedSeed {
  readonly seed: number
  readonly mode: Schedule.Mode
  readonly violations: ReadonlyArray<Invariant.Finding>
  /** The shrunk schedule's report. */
  readonly shrunk: Report.Report
}

/**
 * What a batch saw.
 *
 * @since 1.0.0
 * @category models
 */
export interface Summary {
  readonly schedules: number
  readonly byMode: Record<string, number>
  readonly byClass: Partial<Record<Schedule.Mode, Tally.ClassSummary>>
  readonly sections: number
  readonly writes: number
  readonly staleWritesRejected: number
  readonly faultsByKind: Record<Fault.FaultKind, number>
  readonly pauses: number
  /** Per mode/takeover: how many schedules broke each invariant the mode does not promise. */
  readonly anomalies: Record<string, Partial<Record<Invariant.Invariant, number>>>
  readonly failures: ReadonlyArray<FailedSeed>
  readonly elapsedMs: number
}

/**
 * What a batch runs: seeds `from` .. `from + count - 1`, of one class or of the seeded mix.
 *
 * @since 1.0.0
 * @category models
 */
export interface Options {
  readonly from: number
  readonly count: number
  readonly mode?: Schedule.Mode | undefined
  readonly shrink?: boolean | undefined
  readonly maxShrinks?: number | undefined
  readonly onProgress?: ((done: number) => void) | undefined
}

/**
 * Whether a schedule, run with `run`, still shows a violation of the invariant `report` first broke: the shrinker's
 * test.
 *
 * @since 1.0.0
 * @category checking
 */
export const failsLike = (report: Report.Report, run: History.Run) => (schedule: Schedule.Schedule): boolean => {
  const first = report.violations[0]
  if (first === undefined) return false
  return Report.checkSchedule(schedule, run).violations.some((v) => v.invariant === first.invariant)
}

/**
 * Runs seeds `from` .. `from + count - 1` with `run`, checks each, shrinks failures (the first `maxShrinks` of them:
 * shrinking costs up to a few hundred runs each; the others keep their own report as `shrunk`).
 *
 * @since 1.0.0
 * @category checking
 */
export const runMany = (options: Options, run: History.Run): Summary => {
  const started = Date.now()
  const faultsByKind = {} as Record<Fault.FaultKind, number>
  for (const kind of Fault.kinds) faultsByKind[kind] = 0
  const byMode: Record<string, number> = {}
  const byClass: Partial<Record<Schedule.Mode, Tally.MutableClassSummary>> = {}
  const anomalies: Record<string, Partial<Record<Invariant.Invariant, number>>> = {}
  const failures: Array<FailedSeed> = []
  let sections = 0
  let writes = 0
  let stale = 0
  let pauses = 0
  for (let i = 0; i < options.count; i++) {
    const seed = options.from + i
    const schedule = Generate.generate(seed, { mode: options.mode })
    const report = Report.checkSchedule(schedule, run)
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
    Tally.tallyClass(byClass[schedule.mode] ??= Tally.emptyClass(), report)
    if (report.violations.length > 0) {
      const shrinks = options.shrink !== false && failures.length < (options.maxShrinks ?? Infinity)
      const shrunk = shrinks
        ? Report.checkSchedule(Shrink.shrink(schedule, failsLike(report, run)), run)
        : report
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
