/**
 * The shrinker: drops and shortens parts of a failing schedule one at a time while it still fails.
 *
 * @since 1.0.0
 */
import type * as Schedule from "../simulation/Schedule.js"

/** How many runs a shrink takes at most, by default: each is a whole simulated run. */
const defaultMaxRuns = 500

/**
 * Reduces a schedule that fails `stillFails` to a smaller one that still does: drops sections, faults, force
 * releases, hand-offs, data updates, children, pauses, clock steps, clock offsets and idle processes one at a time,
 * then shortens sections and children and takes one permit where a section took more, until nothing more can go or
 * `maxRuns` candidates have been tried.
 *
 * @since 1.0.0
 * @category checking
 */
export const shrink = (
  schedule: Schedule.Schedule,
  stillFails: (schedule: Schedule.Schedule) => boolean,
  maxRuns = defaultMaxRuns
): Schedule.Schedule => {
  let current = schedule
  let runs = 0
  const attempt = (candidate: Schedule.Schedule) => {
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
      if (current.sections[i]!.handOff === undefined) continue
      const sections = current.sections.map((x, k) => k === i ? { ...x, handOff: undefined } : x)
      if (attempt({ ...current, sections })) progress = true
    }
    for (let i = 0; i < current.sections.length; i++) {
      if (current.sections[i]!.updates === undefined) continue
      const sections = current.sections.map((x, k) => k === i ? { ...x, updates: undefined } : x)
      if (attempt({ ...current, sections })) progress = true
    }
    for (let i = 0; i < current.sections.length; i++) {
      if (current.sections[i]!.child === undefined) continue
      const sections = current.sections.map((x, k) => k === i ? { ...x, child: undefined } : x)
      if (attempt({ ...current, sections })) progress = true
    }
    for (let i = 0; i < current.sections.length; i++) {
      if (current.sections[i]!.region === undefined) continue
      const sections = current.sections.map((x, k) => k === i ? { ...x, region: undefined } : x)
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
    const used = new Set([
      ...current.sections.map((s) => s.process),
      ...current.sections.flatMap((s) => s.handOff === undefined ? [] : [s.handOff.to])
    ])
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
      const permit = current.sections[i]!.semaphore
      if (permit !== undefined && permit.permits > 1) {
        const sections = current.sections.map((x, k) => k === i ? { ...x, semaphore: { ...permit, permits: 1 } } : x)
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
