/**
 * What the `session` class adds to a base schedule: every process holds its locks under a lease session of its own
 * (reopened when it is lost), so that one heartbeat keeps all of a process's locks and a lost session loses them
 * together. In some schedules sections take semaphore permits as well (see `PermitSchedule`), held under the session
 * alike. Sections take several names, some long enough for their session to renew many times; faults hit the
 * session's renews (some held and delivered after their sender gave up), the reads by which other processes judge a
 * session, and the acquires and releases, so that sessions are lost and their locks taken over by others.
 *
 * @since 1.0.0
 */
import * as Draws from "./Draws.js"
import * as Fault from "./Fault.js"
import * as LateSchedule from "./LateSchedule.js"
import * as PermitSchedule from "./PermitSchedule.js"
import type * as Schedule from "./Schedule.js"
import * as SectionDraws from "./SectionDraws.js"

/**
 * The operations a session and the processes that judge it go through. Releases fail often: a lock whose session was
 * lost and whose give-back failed is left to others, who must judge its session dead to take it.
 */
const sessionOperations: ReadonlyArray<Fault.Operation> = [
  "renew",
  "renew",
  "inspect",
  "tryAcquire",
  "release",
  "release"
]

/**
 * `schedule` with what the `session` class adds, drawn from `next`.
 *
 * @since 1.0.0
 * @category generators
 */
export const withSessions = (base: Schedule.Schedule, next: () => number): Schedule.Schedule => {
  const { int, pick } = Draws.make(next)
  // In some schedules a share of the sections take permits of their name's semaphore, under the session too.
  const schedule = next() < 0.4 ? PermitSchedule.withSemaphores(base, next, 0.4) : base
  // Some sections hold for longer than a lease, so that only the session's renews keep them; waiters that watch.
  const sections = schedule.sections.map((s) =>
    next() < 0.3 ? { ...SectionDraws.lengthen(s, next), wait: next() < 0.7 ? "forever" as const : s.wait } : s
  )
  const faults: Array<Fault.ScheduledFault> = [...schedule.faults]
  const count = int(2, 9)
  for (let i = 0; i < count; i++) {
    const operation = pick(sessionOperations)
    const { leaseMs } = schedule.timings
    faults.push({
      process: pick(schedule.processes).id,
      operation,
      nth: int(0, 12),
      fault: LateSchedule.faultOn(operation, { leaseMs, lateShare: 0.4, longestMs: 2 * leaseMs }, next)
    })
  }
  // One process whose releases all fail from some point on, as if the store refused them: the locks it held under a
  // session it then loses stay held, and the others take them over only by judging that session dead.
  if (next() < 0.5) {
    const process = pick(schedule.processes).id
    const from = int(0, 6)
    for (let nth = from; nth < from + 30; nth++) {
      faults.push({ process, operation: "release", nth, fault: { kind: "fatal" } })
    }
  }
  return { ...schedule, sessions: true, sections, faults }
}
