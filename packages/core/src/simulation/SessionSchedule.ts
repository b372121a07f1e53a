/**
 * What the `session` class adds to a base schedule: every process holds its locks under a lease session of its own
 * (reopened when it is lost), so that one heartbeat keeps all of a process's locks and a lost session loses them
 * together. In some schedules sections take semaphore permits as well (see `PermitSchedule`), held under the session
 * alike, and in some one process waits on a herd of locks another holds under its session (`herdOf`). Sections take several names, some long enough for their session to renew many times; faults hit the
 * session's renews (some held and delivered after their sender gave up), the reads by which other processes judge a
 * session, and the acquires and releases, so that sessions are lost and their locks taken over by others.
 *
 * @since 1.0.0
 */
import * as SessionWaiting from "../session/SessionWaiting.js"
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
  const sections: Array<Schedule.SectionSpec> = schedule.sections.map((s) =>
    next() < 0.3 ? { ...SectionDraws.lengthen(s, next), wait: next() < 0.7 ? "forever" as const : s.wait } : s
  )
  const faults: Array<Fault.ScheduledFault> = [...schedule.faults]
  if (next() < 0.5 && schedule.processes.length >= 2) {
    const herd = herdOf(schedule, next)
    sections.push(...herd.sections)
    sections.sort((x, y) => x.at - y.at)
    faults.push(...herd.faults)
  }
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

/**
 * A herd: one process waits on more locks held under another process's session than the waiters of one session read
 * per poll interval (`SessionWaiting.readsPerPoll`), so that they share their reads; the holder's renews sometimes
 * stop, so that its session is lost with all of them and the waiters take them over together.
 */
const herdOf = (
  schedule: Schedule.Schedule,
  next: () => number
): { readonly sections: ReadonlyArray<Schedule.SectionSpec>; readonly faults: ReadonlyArray<Fault.ScheduledFault> } => {
  const { int, pick } = Draws.make(next)
  const holder = pick(schedule.processes).id
  const waiter = pick(schedule.processes.filter((p) => p.id !== holder)).id
  const at = int(0, 4_000)
  const count = int(SessionWaiting.readsPerPoll + 1, SessionWaiting.readsPerPoll + 4)
  const apis: ReadonlyArray<Schedule.Api> = ["withLock", "acquire"]
  const sections: Array<Schedule.SectionSpec> = []
  for (let i = 0; i < count; i++) {
    const name = `herd-${i}`
    const held = { process: holder, name, at, steps: int(1, 4), stepMs: int(50, 700), wait: "forever" as const }
    sections.push(SectionDraws.lengthen({ ...held, api: pick(apis) }, next))
    sections.push({
      process: waiter,
      name,
      at: at + int(50, 500),
      steps: int(1, 3),
      stepMs: int(50, 300),
      wait: next() < 0.7 ? "forever" : int(2_000, 8_000),
      api: pick(apis)
    })
  }
  const { leaseMs } = schedule.timings
  const faults: Array<Fault.ScheduledFault> = next() < 0.6
    ? [{
      process: holder,
      operation: "renew",
      nth: int(1, 6),
      fault: LateSchedule.faultOn("renew", { leaseMs, lateShare: 0.4, longestMs: 2 * leaseMs }, next)
    }]
    : []
  return { sections, faults }
}
