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
 *
 * @since 0.1.0
 * @category models
 */
export type Invariant = "mutualExclusion" | "fenceOrder" | "interruptBeforeTakeover" | "fencedResource" | "noDefects"

/**
 * @since 0.1.0
 * @category constants
 */
export const invariants: ReadonlyArray<Invariant> = [
  "mutualExclusion",
  "fenceOrder",
  "interruptBeforeTakeover",
  "fencedResource",
  "noDefects"
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
 * the README's assumptions: in absolute mode on the skew bound, in both modes on pauses shorter than the safety
 * margin (a holder paused past its lease resumes and starts its section late, with an old fence). The fenced resource
 * and the absence of defects hold always.
 *
 * @since 0.1.0
 * @category checking
 */
export const expectedInvariants = (schedule: Simulation.Schedule): ReadonlyArray<Invariant> => {
  const assumptionsHold = schedule.mode === "safe" || (schedule.mode === "skew" && schedule.takeover === "observed")
  return assumptionsHold ? invariants : ["fencedResource", "noDefects"]
}

const label = (s: Simulation.SectionRecord) => `${s.process}#${s.index} (fence ${s.fence})`

/**
 * Checks every invariant over a history.
 *
 * @since 0.1.0
 * @category checking
 */
export const check = (history: Simulation.History): Report => {
  const findings: Array<Finding> = []
  const acquired = history.sections.filter((s) => s.start !== undefined)
  const endOf = (s: Simulation.SectionRecord) => s.end ?? Infinity
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
            message: `"${name}": ${label(a)} [${a.start}, ${a.end}] overlaps ${label(b)} [${b.start}, ${b.end}]`
          })
          if (a.leaseStatus?.startsWith("Lost") === true && b.fence! > a.fence!) {
            findings.push({
              invariant: "interruptBeforeTakeover",
              message: `"${name}": ${label(a)} lost its lease (${a.leaseStatus}) but ran until ${a.end}, after ${
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

const show = (w: Simulation.WriteRecord) => `section #${w.section} wrote "${w.name}" with fence ${w.fence} at ${w.at}`

/**
 * Runs and checks one schedule.
 *
 * @since 0.1.0
 * @category checking
 */
export const checkSchedule = (schedule: Simulation.Schedule): Report => check(Simulation.run(schedule))

/**
 * Reduces a schedule that fails `stillFails` to a smaller one that still does: drops sections, faults, pauses and
 * idle processes one at a time, then shortens sections, until nothing more can go.
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
    for (let p = 0; p < current.processes.length; p++) {
      const proc = current.processes[p]!
      for (let i = proc.pauses.length - 1; i >= 0; i--) {
        const processes = current.processes.map((q, k) =>
          k === p ? { ...q, pauses: q.pauses.filter((_, j) => j !== i) } : q
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
 * What a batch saw.
 *
 * @since 0.1.0
 * @category models
 */
export interface Summary {
  readonly schedules: number
  readonly byMode: Record<string, number>
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

/**
 * Runs seeds `from` .. `from + count - 1`, checks each, shrinks failures.
 *
 * @since 0.1.0
 * @category checking
 */
export const runMany = (options: {
  readonly from: number
  readonly count: number
  readonly mode?: Simulation.Mode | undefined
  readonly shrink?: boolean | undefined
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
    if (report.violations.length > 0) {
      const shrunk = options.shrink === false ? report : checkSchedule(shrink(schedule, failsLike(report)))
      failures.push({ seed, mode: schedule.mode, violations: report.violations, shrunk })
    }
    options.onProgress?.(i + 1)
  }
  return {
    schedules: options.count,
    byMode,
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
  for (const p of s.processes) {
    const pauses = p.pauses.map((x) => `${x.at}+${x.ms}ms`).join(", ") || "none"
    lines.push(`  process ${p.id}: clock offset ${p.offsetMs} ms; pauses ${pauses}`)
  }
  s.sections.forEach((x, i) =>
    lines.push(
      `  section #${i}: ${x.process} "${x.name}" at ${x.at} via ${x.api}, wait ${x.wait}, ${x.steps} x ${x.stepMs} ms`
    )
  )
  for (const f of s.faults) {
    lines.push(`  fault: ${f.process ?? "any"} ${f.operation} #${f.nth}: ${f.fault.kind}${ms(f.fault)}`)
  }
  const events: Array<[number, number, string]> = []
  let order = 0
  for (const p of s.processes) {
    for (const x of p.pauses) {
      events.push([x.at, order++, `${p.id} pauses for ${x.ms} ms`])
      events.push([x.at + x.ms, order++, `${p.id} resumes`])
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
      events.push([x.start, order++, `${x.process}#${x.index} enters "${x.name}" with fence ${x.fence}`])
    }
  }
  for (const w of history.writes) {
    const verdict = w.accepted ? "accepted" : "REJECTED (stale)"
    events.push([w.at, order++, `section #${w.section} writes "${w.name}" fence ${w.fence}: ${verdict}`])
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
