/**
 * What the `multi` class adds to a base schedule: sections that take several locks together (`Lock.withLocks`), the
 * same names asked for in different orders by different processes, most of them waiting for as long as it takes, so
 * that a wrong order would deadlock them; some of them first trying to take every lock in one store call; with the
 * base's faults and more on the acquires (those of several locks in one call too), renews and releases, some held and
 * delivered after their sender gave up.
 *
 * @since 1.0.0
 */
import * as Draws from "./Draws.js"
import type * as Fault from "./Fault.js"
import * as LateSchedule from "./LateSchedule.js"
import * as Prng from "./Prng.js"
import type * as Schedule from "./Schedule.js"

/** The names the sets are drawn from: few, so that sets overlap. */
const names = ["a", "b", "c", "d"]

const operations: ReadonlyArray<Fault.Operation> = ["tryAcquire", "renew", "release", "inspect"]

/**
 * The share of sections taking locks together that first try them in one store call: enough to meet each other and
 * the sections taking theirs one at a time, while those still make most of the waiting.
 */
const transactionShare = 0.4

/**
 * `sections` with some of those that take locks together asking for one store call first, and faults on that call of
 * the processes that make it, drawn from `next`: a process makes one such call per use at most, and only when none
 * of the names is held or waited for in it, so the faults go to its first few.
 */
const withTransactions = (
  schedule: Schedule.Schedule,
  sections: ReadonlyArray<Schedule.SectionSpec>,
  next: () => number
): Pick<Schedule.Schedule, "sections" | "faults"> => {
  const { int, pick } = Draws.make(next)
  const marked = sections.map((s) =>
    s.together !== undefined && next() < transactionShare ? { ...s, transaction: true } : s
  )
  const senders = [...new Set(marked.flatMap((s) => s.transaction === true ? [s.process] : []))].sort()
  const faults: Array<Fault.ScheduledFault> = []
  const count = senders.length === 0 ? 0 : int(1, 3)
  const { leaseMs } = schedule.timings
  for (let i = 0; i < count; i++) {
    faults.push({
      process: pick(senders),
      operation: "tryAcquireAll",
      nth: int(0, 2),
      fault: LateSchedule.faultOn("tryAcquireAll", { leaseMs, lateShare: 0.3, longestMs: 2 * leaseMs }, next)
    })
  }
  return { sections: marked, faults }
}

/**
 * `schedule` with most of its sections taking two to four locks together, and a few more such sections; some of them
 * first try to take their locks in one store call.
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
  // The calls of several locks at once come from a stream of their own, so that they never shift the draws above.
  const transactions = withTransactions(schedule, sections, Prng.make(schedule.seed ^ 0x85ebca6b))
  return { ...schedule, sections: transactions.sections, faults: [...faults, ...transactions.faults] }
}
