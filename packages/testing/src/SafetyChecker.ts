/**
 * A Jepsen-style checker for lock histories: one set of invariants over what a `Simulation` run recorded, seeded
 * batches of random schedules, and a shrinker that reduces a failing schedule to a small one that still fails.
 *
 * ```ts
 * const summary = SafetyChecker.runMany({ from: 1, count: 200 })
 * expect(summary.violations).toEqual([])
 * ```
 *
 * @since 0.1.0
 */
import type * as FaultyStore from "./FaultyStore.js"
import * as Simulation from "./Simulation.js"

/**
 * The invariants.
 *
 * - `mutualExclusion`: no two critical sections of one name overlap on the true timeline, and the fenced resource
 *   rejects no write (no stale holder wrote after a newer one started).
 * - `fenceOrder`: per name, fences strictly increase in the order sections start.
 * - `interruptBeforeTakeover`: a section whose lease was lost ended no later than the next holder of the name
 *   started, whatever its store calls were doing.
 * - `fencedResource`: the resource accepted no write with a fence lower than one it had accepted.
 * - `noDefects`: every section ended with a value, a typed lock error or an interruption: no defect, nothing left
 *   running once the simulation drained.
 * - `stopsWhenLost`: once a section's lease is Lost, the section (and any child writing on its lease) makes no write
 *   after the one that ends the step in progress.
 * - `reentryProgress`: a use nested in a use of the same name on the same fiber runs at once: it never waits for,
 *   or fails with, a lease of its own fiber, nor with a lease that had ended before it was called. A use that
 *   borrowed its parent's lease may instead be cut off when the parent releases it (`LockLost`, reason "released").
 * - `badOptionsRefused`: a use with an invalid option fails with `LockConfigError` and runs nothing; a use with valid
 *   options is never refused.
 *
 * @since 0.1.0
 * @category models
 */
export type Invariant =
  | "mutualExclusion"
  | "fenceOrder"
  | "interruptBeforeTakeover"
  | "fencedResource"
  | "noDefects"
  | "stopsWhenLost"
  | "reentryProgress"
  | "badOptionsRefused"

/**
 * @since 0.1.0
 * @category constants
 */
export const invariants: ReadonlyArray<Invariant> = [
  "mutualExclusion",
  "fenceOrder",
  "interruptBeforeTakeover",
  "fencedResource",
  "noDefects",
  "stopsWhenLost",
  "reentryProgress",
  "badOptionsRefused"
]

/** Hold in every class: they rely on no assumption about clocks, pauses or operators. */
const unconditional: ReadonlyArray<Invariant> = [
  "fencedResource",
  "noDefects",
  "stopsWhenLost",
  "reentryProgress",
  "badOptionsRefused"
]

/**
 * @since 0.1.0
 * @category models
 */
export interface Finding {
  readonly invariant: Invariant
  readonly message: string
}

/**
 * A checked history. `violations` break invariants the schedule's assumptions promise; `anomalies` break invariants
 * that the schedule's mode is expected to break (overlaps with skew beyond the bound or pauses beyond the lease).
 *
 * @since 0.1.0
 * @category models
 */
export interface Report {
  readonly history: Simulation.History
  readonly expected: ReadonlyArray<Invariant>
  readonly violations: ReadonlyArray<Finding>
  readonly anomalies: ReadonlyArray<Finding>
  /** Acquired sections checked. */
  readonly sections: number
  /** Writes the fenced resource rejected as stale. */
  readonly staleWritesRejected: number
}

/**
 * Which invariants must hold for a schedule. Mutual exclusion, fence order and interruption before takeover rely on
 * the README's assumptions: in absolute mode on wall clocks within the skew bound (so not with `skew` or
 * `clockStep`), in both modes on pauses shorter than the safety margin (a holder paused past its lease resumes and
 * starts its section late, with an old fence). Observed takeover reads no wall clock, so skew and clock steps promise
 * everything there. A force release (`steal`) lets the old holder run on until its next renew, which fencing covers:
 * fences still increase, sections may overlap. Wrapped acquires, forked children and bad options are no excuse:
 * those classes promise everything. The other invariants hold always.
 *
 * @since 0.1.0
 * @category checking
 */
export const expectedInvariants = (schedule: Simulation.Schedule): ReadonlyArray<Invariant> => {
  switch (schedule.mode) {
    case "safe":
    case "wrapped":
    case "reentry":
    case "badOptions":
      return invariants
    case "skew":
    case "clockStep":
      return schedule.takeover === "observed" ? invariants : unconditional
    case "longPause":
      return unconditional
    case "steal":
      return [...unconditional, "fenceOrder"]
  }
}

const label = (s: Simulation.SectionRecord) =>
  `${s.process}#${s.index} (${s.parent === undefined ? "" : `child of #${s.parent}, `}fence ${s.fence})`

/**
 * Checks every invariant over a history.
 *
 * @since 0.1.0
 * @category checking
 */
export const check = (history: Simulation.History): Report => {
  const findings: Array<Finding> = []
  // A child on a borrowed lease is part of its parent's critical section, not one of its own.
  const acquired = history.sections.filter((s) => s.start !== undefined && s.borrowedFrom === undefined)
  // A critical section lasts until it ended and until its last write, which a child may make after it ended.
  const lastWrite = new Map<number, number>()
  for (const w of history.writes) lastWrite.set(w.section, Math.max(lastWrite.get(w.section) ?? -Infinity, w.at))
  const endOf = (s: Simulation.SectionRecord) => Math.max(s.end ?? Infinity, lastWrite.get(s.index) ?? -Infinity)
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

  const highest = new Map<string, number>()
  let staleWritesRejected = 0
  for (const w of history.writes) {
    const before = highest.get(w.name)
    if (!w.accepted) {
      staleWritesRejected++
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

  for (const s of history.sections) {
    if (s.outcome === "defect") {
      findings.push({ invariant: "noDefects", message: `${label(s)} died: ${s.detail}` })
    } else if (s.outcome === "unfinished") {
      findings.push({ invariant: "noDefects", message: `${label(s)} never finished (simulation ran to its cap)` })
    }
  }

  findings.push(...stopsWhenLost(history), ...reentryProgress(history), ...badOptionsRefused(history))

  const expected = expectedInvariants(history.schedule)
  return {
    history,
    expected,
    violations: findings.filter((f) => expected.includes(f.invariant)),
    anomalies: findings.filter((f) => !expected.includes(f.invariant)),
    sections: acquired.length,
    staleWritesRejected
  }
}

/**
 * Writes after a loss, per writer (a section, or a child on its lease): the first ends the step that was in progress
 * when the loss was declared, since interruption lands at a step boundary; any later one ran on a lost lease.
 */
const stopsWhenLost = (history: Simulation.History): Array<Finding> => {
  const findings: Array<Finding> = []
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
const reentryProgress = (history: Simulation.History): Array<Finding> => {
  const findings: Array<Finding> = []
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
      x !== s && x.name === s.name && x.fence === s.lostFence && x.borrowedFrom === undefined &&
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
const badOptionsRefused = (history: Simulation.History): Array<Finding> => {
  const findings: Array<Finding> = []
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

const show = (w: Simulation.WriteRecord) => `section #${w.section} wrote "${w.name}" with fence ${w.fence} at ${w.at}`

/**
 * Runs and checks one schedule.
 *
 * @since 0.1.0
 * @category checking
 */
export const checkSchedule = (schedule: Simulation.Schedule): Report => check(Simulation.run(schedule))

/**
 * Reduces a schedule that fails `stillFails` to a smaller one that still does: drops sections, faults, force
 * releases, children, pauses, clock steps, clock offsets and idle processes one at a time, then shortens sections and
 * children, until nothing more can go.
 *
 * @since 0.1.0
 * @category checking
 */
export const shrink = (
  schedule: Simulation.Schedule,
  stillFails: (schedule: Simulation.Schedule) => boolean,
  maxRuns = 500
): Simulation.Schedule => {
  let current = schedule
  let runs = 0
  const attempt = (candidate: Simulation.Schedule) => {
    if (runs >= maxRuns) return false
    runs++
    if (!stillFails(candidate)) return false
    current = candidate
    return true
  }
  let progress = true
  while (progress && runs < maxRuns) {
    progress = false
    for (let i = current.sections.length - 1; i >= 0; i--) {
      if (attempt({ ...current, sections: current.sections.filter((_, k) => k !== i) })) progress = true
    }
    for (let i = current.faults.length - 1; i >= 0; i--) {
      if (attempt({ ...current, faults: current.faults.filter((_, k) => k !== i) })) progress = true
    }
    const steals = current.steals ?? []
    for (let i = steals.length - 1; i >= 0; i--) {
      if (attempt({ ...current, steals: steals.filter((_, k) => k !== i) })) progress = true
    }
    for (let i = 0; i < current.sections.length; i++) {
      if (current.sections[i]!.child === undefined) continue
      const sections = current.sections.map((x, k) => k === i ? { ...x, child: undefined } : x)
      if (attempt({ ...current, sections })) progress = true
    }
    for (let p = 0; p < current.processes.length; p++) {
      const proc = current.processes[p]!
      for (let i = proc.pauses.length - 1; i >= 0; i--) {
        const processes = current.processes.map((q, k) =>
          k === p ? { ...q, pauses: q.pauses.filter((_, j) => j !== i) } : q
        )
        if (attempt({ ...current, processes })) progress = true
      }
      const clockSteps = proc.clockSteps ?? []
      for (let i = clockSteps.length - 1; i >= 0; i--) {
        const processes = current.processes.map((q, k) =>
          k === p ? { ...q, clockSteps: clockSteps.filter((_, j) => j !== i) } : q
        )
        if (attempt({ ...current, processes })) progress = true
      }
      if (proc.offsetMs !== 0) {
        const processes = current.processes.map((q, k) => k === p ? { ...q, offsetMs: 0 } : q)
        if (attempt({ ...current, processes })) progress = true
      }
    }
    const used = new Set([...current.sections.map((s) => s.process)])
    const idle = current.processes.filter((p) => !used.has(p.id))
    if (idle.length > 0) {
      const processes = current.processes.filter((p) => used.has(p.id))
      const faults = current.faults.filter((f) => f.process === undefined || used.has(f.process))
      if (attempt({ ...current, processes, faults })) progress = true
    }
    for (let i = 0; i < current.sections.length; i++) {
      const s = current.sections[i]!
      if (s.steps > 1) {
        const sections = current.sections.map((x, k) => k === i ? { ...x, steps: 1 } : x)
        if (attempt({ ...current, sections })) progress = true
      }
      const child = current.sections[i]!.child
      if (child !== undefined && child.steps > 1) {
        const sections = current.sections.map((x, k) => k === i ? { ...x, child: { ...child, steps: 1 } } : x)
        if (attempt({ ...current, sections })) progress = true
      }
    }
  }
  return current
}

/**
 * Whether a report still shows a violation of the same invariant: the shrinker's test.
 *
 * @since 0.1.0
 * @category checking
 */
export const failsLike = (report: Report) => (schedule: Simulation.Schedule): boolean => {
  const first = report.violations[0]
  if (first === undefined) return false
  return checkSchedule(schedule).violations.some((v) => v.invariant === first.invariant)
}

/**
 * @since 0.1.0
 * @category models
 */
export interface FailedSeed {
  readonly seed: number
  readonly mode: Simulation.Mode
  readonly violations: ReadonlyArray<Finding>
  /** The shrunk schedule's report. */
  readonly shrunk: Report
}

/**
 * What a batch saw of one class of schedules.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClassSummary {
  readonly schedules: number
  /** Acquired sections checked (children on their own lease included). */
  readonly sections: number
  readonly writes: number
  readonly faults: number
  readonly pauses: number
  /** Force releases that cleared a holder, of those planned. */
  readonly steals: number
  readonly stealsPlanned: number
  readonly clockSteps: number
  /** Children forked, and how many of them ran on their parent's lease. */
  readonly children: number
  readonly childrenBorrowing: number
  readonly badOptions: number
  /** Schedules with violations of what the class promises, and per invariant. */
  readonly failed: number
  readonly violations: Partial<Record<Invariant, number>>
  /** Schedules breaking each invariant the class does not promise. */
  readonly anomalies: Partial<Record<Invariant, number>>
  /** The first few failing seeds. */
  readonly failingSeeds: ReadonlyArray<number>
}

/**
 * What a batch saw.
 *
 * @since 0.1.0
 * @category models
 */
export interface Summary {
  readonly schedules: number
  readonly byMode: Record<string, number>
  readonly byClass: Partial<Record<Simulation.Mode, ClassSummary>>
  readonly sections: number
  readonly writes: number
  readonly staleWritesRejected: number
  readonly faultsByKind: Record<FaultyStore.FaultKind, number>
  readonly pauses: number
  /** Per mode/takeover: how many schedules broke each invariant the mode does not promise. */
  readonly anomalies: Record<string, Partial<Record<Invariant, number>>>
  readonly failures: ReadonlyArray<FailedSeed>
  readonly elapsedMs: number
}

type MutableClassSummary = { -readonly [K in keyof ClassSummary]: ClassSummary[K] } & {
  failingSeeds: Array<number>
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
  failed: 0,
  violations: {},
  anomalies: {},
  failingSeeds: []
})

const tallyClass = (tally: MutableClassSummary, report: Report) => {
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
  }
  tally.badOptions += schedule.sections.filter((s) => s.badOption !== undefined).length
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

/**
 * Runs seeds `from` .. `from + count - 1`, checks each, shrinks failures (the first `maxShrinks` of them: shrinking
 * costs up to a few hundred runs each; the others keep their own report as `shrunk`).
 *
 * @since 0.1.0
 * @category checking
 */
export const runMany = (options: {
  readonly from: number
  readonly count: number
  readonly mode?: Simulation.Mode | undefined
  readonly shrink?: boolean | undefined
  readonly maxShrinks?: number | undefined
  readonly onProgress?: ((done: number) => void) | undefined
}): Summary => {
  const started = Date.now()
  const faultsByKind: Record<FaultyStore.FaultKind, number> = {
    retryable: 0,
    fatal: 0,
    latency: 0,
    hang: 0,
    slowResponse: 0,
    lostResponse: 0,
    lostTimeout: 0
  }
  const byMode: Record<string, number> = {}
  const byClass: Partial<Record<Simulation.Mode, MutableClassSummary>> = {}
  const anomalies: Record<string, Partial<Record<Invariant, number>>> = {}
  const failures: Array<FailedSeed> = []
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

/**
 * A readable history: the schedule, then every event in true-time order.
 *
 * @since 0.1.0
 * @category formatting
 */
export const formatHistory = (history: Simulation.History): string => {
  const s = history.schedule
  const ms = (f: FaultyStore.Fault) => f.ms === undefined ? "" : ` ${f.ms}ms`
  const lines: Array<string> = [
    `schedule seed=${s.seed} mode=${s.mode} takeover=${s.takeover} lease=${s.timings.leaseMs}ms ` +
    `heartbeat=${s.timings.heartbeatMs}ms safetyMargin=${s.timings.safetyMarginMs}ms ` +
    `maxClockSkew=${s.timings.maxClockSkewMs}ms`
  ]
  const clockStep = (x: Simulation.ClockStep) =>
    x.kind === "freeze" ? `freezes for ${x.ms} ms` : `jumps ${x.ms > 0 ? "+" : ""}${x.ms} ms`
  for (const p of s.processes) {
    const pauses = p.pauses.map((x) => `${x.at}+${x.ms}ms`).join(", ") || "none"
    const steps = (p.clockSteps ?? []).map((x) => `; wall clock ${clockStep(x)} at ${x.at}`).join("")
    lines.push(`  process ${p.id}: clock offset ${p.offsetMs} ms; pauses ${pauses}${steps}`)
  }
  s.sections.forEach((x, i) => {
    const api = x.api === "acquireInTimeout" ? `${x.api}(${x.timeoutMs} ms)` : x.api
    const bad = x.badOption === undefined
      ? ""
      : `, bad option ${Simulation.badOptionValue(x.badOption, s.timings).show}`
    const child = x.child === undefined
      ? ""
      : `; forks child #${s.sections.length + i}: ${x.child.afterMs} ms in, ${
        x.child.nested ? "withLock(withLock(...))" : "withLock(...)"
      }, ${x.child.steps} x ${x.child.stepMs} ms`
    lines.push(
      `  section #${i}: ${x.process} "${x.name}" at ${x.at} via ${api}, wait ${x.wait}, ${x.steps} x ${x.stepMs} ms` +
        bad + child
    )
  })
  for (const f of s.faults) {
    lines.push(`  fault: ${f.process ?? "any"} ${f.operation} #${f.nth}: ${f.fault.kind}${ms(f.fault)}`)
  }
  for (const x of s.steals ?? []) lines.push(`  operator: force release of "${x.name}" at ${x.at}`)
  const events: Array<[number, number, string]> = []
  let order = 0
  for (const p of s.processes) {
    for (const x of p.pauses) {
      events.push([x.at, order++, `${p.id} pauses for ${x.ms} ms`])
      events.push([x.at + x.ms, order++, `${p.id} resumes`])
    }
    for (const x of p.clockSteps ?? []) events.push([x.at, order++, `${p.id}'s wall clock ${clockStep(x)}`])
  }
  for (const x of history.steals ?? []) {
    const cleared = x.fence === undefined ? "nothing held" : `cleared ${x.holder} (fence ${x.fence})`
    events.push([x.at, order++, `operator force-releases "${x.name}": ${cleared}`])
  }
  for (const x of history.sections) {
    if (x.lostAt !== undefined) events.push([x.lostAt, order++, `${x.process}#${x.index}'s lease is lost`])
    if (x.outerEnteredAt !== undefined) {
      events.push([x.outerEnteredAt, order++, `${x.process}#${x.index} holds "${x.name}" in its outer withLock`])
    }
  }
  for (const f of history.faults) {
    events.push([
      f.at,
      order++,
      `${f.call.process} ${f.call.operation} #${f.call.nth}: fault ${f.fault.kind}${ms(f.fault)}`
    ])
  }
  for (const x of history.sections) {
    if (x.start !== undefined) {
      const borrowed = x.borrowedFrom === undefined ? "" : ` (the lease of #${x.borrowedFrom})`
      events.push([x.start, order++, `${x.process}#${x.index} enters "${x.name}" with fence ${x.fence}${borrowed}`])
    }
  }
  for (const w of history.writes) {
    const verdict = w.accepted ? "accepted" : "REJECTED (stale)"
    const writer = w.by === undefined ? `section #${w.section}` : `child #${w.by} (for section #${w.section})`
    events.push([w.at, order++, `${writer} writes "${w.name}" fence ${w.fence}: ${verdict}`])
  }
  for (const x of history.sections) {
    const status = x.leaseStatus === undefined ? "" : ` (lease ${x.leaseStatus})`
    const detail = x.detail === undefined ? "" : ` - ${x.detail.split("\n")[0]}`
    const verb = x.start === undefined ? "gives up on" : "leaves"
    events.push([
      x.end ?? x.finishedAt ?? history.endedAt,
      order++,
      `${x.process}#${x.index} ${verb} "${x.name}": ${x.outcome}${status}${detail}`
    ])
  }
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1])
  lines.push("history (true ms):")
  for (const [at, , text] of events) lines.push(`  ${String(at).padStart(6)}  ${text}`)
  return lines.join("\n")
}
