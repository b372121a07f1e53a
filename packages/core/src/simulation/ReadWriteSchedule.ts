/**
 * What the `readWrite` class adds to a base schedule: most sections take a read/write lock of their name
 * (`ReadWriteLock.withReadLock` or `withWriteLock`, some a scoped acquire of either), most of them to read, and more
 * of them arrive while others hold, so that readers share the lock, writers wait for readers and readers for
 * writers, and waiters reserve it; most wait for as long as it takes. Faults hit the permit operations and the
 * waiters' reservations, some of them writes held and delivered after their sender gave up, and some holders' releases
 * all fail, so that the next acquirer must wait their leases out and remove them.
 *
 * @since 1.0.0
 */
import type * as ReadWriteMode from "../record/ReadWriteMode.js"
import * as Draws from "./Draws.js"
import type * as Fault from "./Fault.js"
import * as LateSchedule from "./LateSchedule.js"
import * as PermitSchedule from "./PermitSchedule.js"
import type * as Schedule from "./Schedule.js"
import * as SectionDraws from "./SectionDraws.js"

/** Readers among the sections that take a read/write lock: most, as where such a lock pays. */
const readShare = 2 / 3

/** The writes of a read/write lock's holders and waiters, weighted as they make them: renews most. */
const operations: ReadonlyArray<Fault.Operation> = [
  "tryAcquirePermits",
  "renewPermits",
  "renewPermits",
  "releasePermits",
  "reservePermits",
  "reservePermits"
]

/**
 * `schedule` with most of its sections taking the read/write lock of their name, and more such sections among them.
 *
 * @since 1.0.0
 * @category generators
 */
export const withReadWriteLocks = (schedule: Schedule.Schedule, next: () => number): Schedule.Schedule => {
  const { int, pick } = Draws.make(next)
  const { leaseMs } = schedule.timings
  const readWrite = (s: Schedule.SectionSpec): Schedule.SectionSpec => {
    // Some hold for longer than a lease, so that only their renews keep them.
    const long = next() < 0.3 ? SectionDraws.lengthen(s, next) : s
    const mode: ReadWriteMode.Mode = next() < readShare ? "read" : "write"
    return {
      process: s.process,
      name: s.name,
      at: s.at,
      steps: long.steps,
      stepMs: long.stepMs,
      wait: next() < 0.7 ? "forever" : int(100, 4_000),
      api: next() < 0.75 ? "withLock" : "acquire",
      readWrite: mode
    }
  }
  // Some sections keep the lock of their name, which the read/write lock of the same name must never meet.
  const sections = schedule.sections.map((s) => (next() < 0.85 ? readWrite(s) : s))
  // Uses that arrive while another of the name may hold it: readers beside readers, and waiters of either mode.
  const extra = int(3, 6)
  for (let i = 0; i < extra; i++) {
    const near = pick(sections)
    sections.push(readWrite({
      process: pick(schedule.processes).id,
      name: near.name,
      at: near.at + int(0, 1_500),
      steps: int(1, 4),
      stepMs: int(50, 400),
      wait: "forever",
      api: "withLock"
    }))
  }
  sections.sort((x, y) => x.at - y.at)
  const faults: Array<Fault.ScheduledFault> = []
  const count = int(2, 8)
  for (let i = 0; i < count; i++) {
    const operation = pick(operations)
    faults.push({
      process: pick(schedule.processes).id,
      operation,
      nth: int(0, operation === "renewPermits" ? 15 : 6),
      fault: LateSchedule.faultOn(operation, { leaseMs, lateShare: 0.3, longestMs: 2 * leaseMs }, next)
    })
  }
  const used = [...new Set(sections.filter((s) => s.readWrite !== undefined).map((s) => s.process))].sort()
  faults.push(...PermitSchedule.stuckHolders(used, leaseMs, next))
  return { ...schedule, sections, faults: [...schedule.faults, ...faults] }
}
