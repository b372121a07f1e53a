/**
 * What the `late` class adds to a base schedule: held writes on every write operation the processes make, delivered
 * after their senders gave up, and the sections whose writes they hold: semaphores beside locks, acquires with a
 * finite wait, sections that update their data under a timeout or hand their lease off.
 *
 * @since 1.0.0
 */
import * as Draws from "./Draws.js"
import * as Fault from "./Fault.js"
import * as PermitSchedule from "./PermitSchedule.js"
import type * as Schedule from "./Schedule.js"
import * as SectionDraws from "./SectionDraws.js"

/** A lock's writes, weighted as a process makes them: renews most, releases (and give-backs) next. */
const lockWrites: ReadonlyArray<Fault.Operation> = [
  "tryAcquire",
  "renew",
  "renew",
  "release",
  "release",
  "reserve"
]

const permitWrites: ReadonlyArray<Fault.Operation> = [
  "tryAcquirePermits",
  "renewPermits",
  "renewPermits",
  "releasePermits",
  "releasePermits"
]

/** Held writes per schedule, beside those aimed at a holder: enough that some land after their sender's next writes. */
const minHeld = 3
const maxHeld = 10

/** Writes held in a row where one of them must be the one that matters: a give-back, a long holder's renew. */
const heldInARow = 4

/** How long the network holds a write: a moment, or up to a few leases (past the sender's next writes). */
const heldMsOf = (leaseMs: number, next: () => number): number => {
  const { int } = Draws.make(next)
  return next() < 0.5 ? int(1, leaseMs / 2) : int(leaseMs / 2, 3 * leaseMs)
}

/**
 * A held write of `kind`, drawn from `next` for lease `leaseMs`: the network keeps it past its sender's give-up (a
 * request timeout, or most of a lease) and delivers it later.
 *
 * @since 1.0.0
 * @category generators
 */
export const heldFault = (kind: Fault.FaultKind, leaseMs: number, next: () => number): Fault.Fault => {
  const { int } = Draws.make(next)
  const heldMs = heldMsOf(leaseMs, next)
  if (kind === "lateHang") return { kind, ms: heldMs }
  // Mostly a short request timeout; sometimes most of a lease, so that the retry's answer comes too late to use.
  const giveUpMs = next() < 0.8 ? int(10, 600) : int(600, leaseMs)
  return { kind, ms: giveUpMs + heldMs, giveUpMs }
}

/**
 * A fault on `operation`, drawn from `next`: with `lateShare` a held write delivered late (`heldFault`; never on a
 * read, which is not held), else a base fault, lasting up to `longestMs` where it lasts (latency at most 100 ms).
 *
 * @since 1.0.0
 * @category generators
 */
export const faultOn = (
  operation: Fault.Operation,
  options: { readonly leaseMs: number; readonly lateShare: number; readonly longestMs: number },
  next: () => number
): Fault.Fault => {
  const { int, pick } = Draws.make(next)
  const kind = pick(operation !== "inspect" && next() < options.lateShare ? Fault.lateKinds : Draws.baseFaultKinds)
  if (Fault.isLate(kind)) return heldFault(kind, options.leaseMs, next)
  if (Fault.isInstant(kind)) return { kind }
  return { kind, ms: kind === "latency" ? int(1, 100) : int(50, options.longestMs) }
}

/** What a targeted case adds: sections (replacing the one it aims at) and held writes. */
interface Aimed {
  readonly sections: ReadonlyArray<Schedule.SectionSpec>
  readonly faults: ReadonlyArray<Fault.ScheduledFault>
}

/**
 * A section of another process that wants `holder`'s lock or semaphore while it runs, for as long as it takes: on a
 * semaphore, more permits than `holder` leaves free.
 */
const contender = (
  schedule: Schedule.Schedule,
  holder: Schedule.SectionSpec,
  afterMs: readonly [number, number],
  next: () => number
): Array<Schedule.SectionSpec> => {
  const { int, pick } = Draws.make(next)
  const others = schedule.processes.map((p) => p.id).filter((id) => id !== holder.process)
  if (others.length === 0) return []
  const permit = holder.semaphore
  return [{
    process: pick(others),
    name: holder.name,
    at: holder.at + int(...afterMs),
    steps: int(1, 4),
    stepMs: int(50, 500),
    wait: "forever",
    api: next() < 0.5 ? "withLock" : "acquire",
    ...(permit === undefined ? {} : { semaphore: { limit: permit.limit, permits: permit.limit - permit.permits + 1 } })
  }]
}

/**
 * A holder that runs for a few leases, a contender, and the holder's process's renews held for longer than a lease
 * while its sender goes on (a timeout and a retry, or the transport's retry): each lands behind newer renews.
 */
const lateRenews = (schedule: Schedule.Schedule, holder: Schedule.SectionSpec, next: () => number): Aimed => {
  const { int, pick } = Draws.make(next)
  const { leaseMs } = schedule.timings
  const long = { ...SectionDraws.lengthen(holder, next), steps: int(6, 10) }
  const faults: Array<Fault.ScheduledFault> = []
  for (let k = 0; k < heldInARow; k++) {
    const giveUpMs = int(10, 600)
    faults.push({
      process: holder.process,
      operation: holder.semaphore === undefined ? "renew" : "renewPermits",
      nth: int(0, 12),
      fault: { kind: pick(["lateTimeout", "lateRetry"] as const), ms: giveUpMs + int(leaseMs, 3 * leaseMs), giveUpMs }
    })
  }
  return { sections: [long, ...contender(schedule, long, [200, 2_000], next)], faults }
}

/**
 * An acquire answered too late to use (the transport's retry answers after the lease it took could be over), the
 * sender's next releases held for longer than a lease, and a contender: the acquire loop gives the write back by
 * owner and tries again, and the give-back may land after an attempt that acquired.
 */
const lateAnswer = (
  schedule: Schedule.Schedule,
  sections: ReadonlyArray<Schedule.SectionSpec>,
  section: Schedule.SectionSpec,
  next: () => number
): Aimed => {
  const { int, pick } = Draws.make(next)
  const { leaseMs, safetyMarginMs } = schedule.timings
  const semaphore = section.semaphore !== undefined
  // Each earlier use by the process made an acquire and a release, at least: the section's are the next ones.
  const before = sections.filter((s) => s.process === section.process && s.at < section.at).length
  const giveUpMs = int(leaseMs - safetyMarginMs, leaseMs)
  const faults: Array<Fault.ScheduledFault> = [{
    process: section.process,
    operation: semaphore ? "tryAcquirePermits" : "tryAcquire",
    nth: before,
    fault: { kind: "lateRetry", ms: giveUpMs + heldMsOf(leaseMs, next), giveUpMs }
  }]
  for (let k = 0; k < heldInARow; k++) {
    const kind = pick(Fault.lateKinds)
    const heldMs = int(leaseMs, 3 * leaseMs)
    const giveUp = int(10, 600)
    faults.push({
      process: section.process,
      operation: semaphore ? "releasePermits" : "release",
      nth: before + k,
      fault: kind === "lateHang" ? { kind, ms: heldMs } : { kind, ms: giveUp + heldMs, giveUpMs: giveUp }
    })
  }
  // Once the holder has given its first write back and acquired again: it runs for a few leases, with a contender.
  const long = { ...SectionDraws.lengthen(section, next), steps: int(6, 10) }
  return { sections: [long, ...contender(schedule, long, [leaseMs, 3 * leaseMs], next)], faults }
}

/** Sections that take part: longer, updating their data under a timeout, handing off, waiting a finite time. */
const varied = (schedule: Schedule.Schedule, next: () => number): Array<Schedule.SectionSpec> => {
  const { int } = Draws.make(next)
  return schedule.sections.map((s) => {
    let section = s
    const draw = next()
    // Holders that run for a few leases, whose renews a held one can land behind.
    if (draw < 0.5) section = { ...SectionDraws.lengthen(s, next), steps: int(4, 10) }
    if (s.semaphore === undefined) {
      if (draw < 0.3) section = { ...section, updates: { timeoutMs: int(20, 1_500) } }
      else if (draw > 0.85) section = SectionDraws.handedOff(schedule, s, next)
    }
    // A finite wait bounds an acquire whose write is held: it gives the write back and gives up.
    return next() < 0.4 ? { ...section, wait: int(100, 4_000) } : section
  })
}

/**
 * `schedule` with what the `late` class adds, drawn from `next`.
 *
 * @since 1.0.0
 * @category generators
 */
export const withLateDelivery = (schedule: Schedule.Schedule, next: () => number): Schedule.Schedule => {
  const { int, pick } = Draws.make(next)
  // Semaphores in half the schedules, some of their names' sections keeping the lock.
  const mixed = next() < 0.5 ? PermitSchedule.withSemaphores(schedule, next, 0.6) : schedule
  let sections = varied(mixed, next)
  const senders = [...new Set(sections.map((s) => s.process))].sort()
  const operations = [
    ...(sections.some((s) => s.semaphore === undefined) ? lockWrites : []),
    ...(sections.some((s) => s.semaphore !== undefined) ? permitWrites : [])
  ]
  const held: Array<Fault.ScheduledFault> = []
  const count = int(minHeld, maxHeld)
  for (let i = 0; i < count; i++) {
    const operation = pick(operations)
    const renews = operation === "renew" || operation === "renewPermits"
    held.push({
      process: pick(senders),
      operation,
      nth: int(0, renews ? 15 : 5),
      fault: heldFault(pick(Fault.lateKinds), mixed.timings.leaseMs, next)
    })
  }
  // One holder in most schedules is aimed at: its renews, or a late answer to its acquire, and a give-back.
  const aim = next()
  if (aim < 0.8) {
    const target = int(0, sections.length - 1)
    const aimed = aim < 0.4
      ? lateRenews(mixed, sections[target]!, next)
      : lateAnswer(mixed, sections, sections[target]!, next)
    sections = [...sections.slice(0, target), ...aimed.sections, ...sections.slice(target + 1)]
    held.push(...aimed.faults)
  }
  sections.sort((x, y) => x.at - y.at)
  return { ...mixed, sections, faults: [...mixed.faults, ...held] }
}
