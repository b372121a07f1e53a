/**
 * The invariants of locks taken together (`Lock.withLocks`) over a simulated history: a section ran holding all of
 * its locks or none, and no sections waited on each other in a cycle. Each lock of such a section is a section of its
 * own name for the lock invariants (`LockInvariants`), with the record `SectionRecord.togetherIndexOf` gives it.
 *
 * @since 1.0.0
 */
import type * as History from "../simulation/History.js"
import type * as Schedule from "../simulation/Schedule.js"
import * as SectionOptions from "../simulation/SectionOptions.js"
import * as SectionRecord from "../simulation/SectionRecord.js"
import type * as Invariant from "./Invariant.js"

/** A planned section that takes locks together: its index, its names as given, and the record of each. */
interface Together {
  readonly index: number
  readonly spec: Schedule.SectionSpec
  readonly names: ReadonlyArray<string>
  readonly records: ReadonlyArray<SectionRecord.SectionRecord | undefined>
}

const togetherSections = (history: History.History): Array<Together> => {
  const count = history.schedule.sections.length
  const byIndex = new Map(history.sections.map((s) => [s.index, s]))
  return history.schedule.sections.flatMap((spec, index) => {
    if (spec.together === undefined) return []
    const names = [spec.name, ...spec.together]
    const records = [
      byIndex.get(index),
      ...spec.together.map((_, k) => byIndex.get(SectionRecord.togetherIndexOf(k, index, count)))
    ]
    return [{ index, spec, names, records }]
  })
}

/**
 * Sections that ran holding some of the locks they take together but not all of them.
 *
 * @since 1.0.0
 * @category invariants
 */
export const allOrNone = (history: History.History): Array<Invariant.Finding> =>
  togetherSections(history).flatMap(({ index, names, records, spec }) => {
    const started = names.filter((_, k) => records[k]?.start !== undefined)
    if (started.length === 0 || started.length === names.length) return []
    const missing = names.filter((name) => !started.includes(name))
    return [{
      invariant: "allOrNone" as const,
      message: `${spec.process}#${index} ran its section holding ${started.join(", ")} without ${missing.join(", ")}`
    }]
  })

/**
 * Sections that waited on each other in a cycle at the horizon: each waiting for ever, never run, holding a lock (in
 * the store, on a lease not over: `History.holdersAtHorizon`) that the next one waits for. A section waits for the
 * lock its last acquiring write was sent for, unless it holds it.
 *
 * @since 1.0.0
 * @category invariants
 */
export const noDeadlock = (history: History.History): Array<Invariant.Finding> => {
  const holders = history.holdersAtHorizon
  const targets = history.targetsAtHorizon ?? {}
  if (holders === undefined) return []
  const { horizonMs } = history.schedule
  const waiting = togetherSections(history).filter(({ records, spec }) =>
    spec.wait === "forever" && records[0] !== undefined && records[0].start === undefined &&
    (records[0].finishedAt === undefined || records[0].finishedAt >= horizonMs)
  )
  const byHolder = new Map(waiting.map((w) => [SectionOptions.holderOf(w.spec.process, w.index), w]))
  /** The lock `w` waits for, and the waiting section that holds it, if one does. */
  const waitsFor = (w: Together) => {
    const self = SectionOptions.holderOf(w.spec.process, w.index)
    const target = targets[self]
    const name = target !== undefined && holders[target] !== self ? target : undefined
    const holder = name === undefined ? undefined : holders[name]
    return { name, on: holder === undefined ? undefined : byHolder.get(holder) }
  }
  const findings: Array<Invariant.Finding> = []
  const reported = new Set<number>()
  for (const start of waiting) {
    const path: Array<Together> = []
    let current: Together | undefined = start
    while (current !== undefined && !path.includes(current)) {
      path.push(current)
      current = waitsFor(current).on
    }
    if (current === undefined || reported.has(current.index)) continue
    const cycle = path.slice(path.indexOf(current))
    for (const w of cycle) reported.add(w.index)
    findings.push({
      invariant: "noDeadlock",
      message: `sections wait on each other for ever: ${
        cycle.map((w) => `${w.spec.process}#${w.index} waits for "${waitsFor(w).name}"`).join(", held by ")
      }, held by ${cycle[0]!.spec.process}#${cycle[0]!.index}`
    })
  }
  return findings
}
