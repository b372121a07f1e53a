/**
 * What the `multi` class adds to a base schedule: sections that take several locks together (`Lock.withLocks`), the
 * same names asked for in different orders by different processes, most of them waiting for as long as it takes, so
 * that a wrong order would deadlock them; with the base's faults and more on the acquires, renews and releases, some
 * held and delivered after their sender gave up.
 *
 * @since 1.0.0
 */
import * as Draws from "./Draws.js"
import type * as Fault from "./Fault.js"
import * as LateSchedule from "./LateSchedule.js"
import type * as Schedule from "./Schedule.js"

/** The names the sets are drawn from: few, so that sets overlap. */
const names = ["a", "b", "c", "d"]

const operations: ReadonlyArray<Fault.Operation> = ["tryAcquire", "renew", "release", "inspect"]

/**
 * `schedule` with most of its sections taking two to four locks together, and a few more such sections.
 *
 * @since 1.0.0
 * @category generators
 */
export const withMultiLocks = (schedule: Schedule.Schedule, next: () => number): Schedule.Schedule => {
  const { int, pick } = Draws.make(next)
  /** A set of two to four names, in a random order: the order a section gives them in. */
  const set = (): ReadonlyArray<string> => {
    const shuffled = [...names].sort(() => next() - 0.5)
    return shuffled.slice(0, int(2, 4))
  }
  const together = (s: Schedule.SectionSpec): Schedule.SectionSpec => {
    const [name, ...rest] = set()
    return {
      process: s.process,
      name: name!,
      at: s.at,
      steps: s.steps,
      stepMs: s.stepMs,
      wait: next() < 0.7 ? "forever" : s.wait,
      api: "withLock",
      together: rest
    }
  }
  const sections = schedule.sections.map((s) => (next() < 0.8 ? together(s) : s))
  const extra = int(2, 5)
  for (let i = 0; i < extra; i++) {
    const at = int(0, 6_000)
    sections.push(together({
      process: pick(schedule.processes).id,
      name: "a",
      at,
      steps: int(1, 4),
      stepMs: int(50, 400),
      wait: "forever",
      api: "withLock"
    }))
  }
  sections.sort((x, y) => x.at - y.at)
  const faults: Array<Fault.ScheduledFault> = [...schedule.faults]
  const { leaseMs } = schedule.timings
  const count = int(1, 6)
  for (let i = 0; i < count; i++) {
    const operation = pick(operations)
    faults.push({
      process: pick(schedule.processes).id,
      operation,
      nth: int(0, 12),
      fault: LateSchedule.faultOn(operation, { leaseMs, lateShare: 0.3, longestMs: 2 * leaseMs }, next)
    })
  }
  return { ...schedule, sections, faults }
}
