/**
 * What the `semaphore` class adds to a base schedule: a limit per name, most sections turned into uses of the
 * name's semaphore, more sections to fill the semaphores, and store faults on the semaphore operations.
 *
 * @since 1.0.0
 */
import * as Draws from "./Draws.js"
import * as Fault from "./Fault.js"
import type * as Schedule from "./Schedule.js"

/** The largest limit drawn: small, so that semaphores fill and holders wait, are removed and are taken over. */
const maxLimit = 5

/** The attempts a release makes before it leaves the lease to expire. */
const releaseAttempts = 3

const permitOperations: ReadonlyArray<Fault.Operation> = [
  "tryAcquirePermits",
  "renewPermits",
  "renewPermits",
  "releasePermits"
]

/**
 * `schedule` with `share` of its sections (most, by default) turned into uses of their name's semaphore, and more
 * of those.
 *
 * @since 1.0.0
 * @category generators
 */
export const withSemaphores = (
  schedule: Schedule.Schedule,
  next: () => number,
  share = 0.8
): Schedule.Schedule => {
  const { int, pick } = Draws.make(next)
  const { leaseMs } = schedule.timings
  const names = [...new Set(schedule.sections.map((s) => s.name))].sort()
  const limits = new Map(names.map((name) => [name, int(1, maxLimit)] as const))
  const permitOf = (name: string): Schedule.PermitSpec => {
    const limit = limits.get(name)!
    return { limit, permits: int(1, limit) }
  }
  // Some sections keep their lock: a lock and a semaphore of one name must not meet.
  const sections = schedule.sections.map((s) => next() < share ? { ...s, semaphore: permitOf(s.name) } : s)
  const extra = int(2, 6)
  for (let i = 0; i < extra; i++) {
    const name = pick(names)
    sections.push({
      process: pick(schedule.processes).id,
      name,
      at: int(0, 9_000),
      steps: int(1, 6),
      stepMs: int(50, 700),
      wait: next() < 0.5 ? "forever" : int(0, 4_000),
      api: next() < 0.5 ? "withLock" : "acquire",
      semaphore: permitOf(name)
    })
  }
  sections.sort((x, y) => x.at - y.at)
  const faults: Array<Fault.ScheduledFault> = []
  const faultCount = int(0, 10)
  for (let i = 0; i < faultCount; i++) {
    const operation = pick(permitOperations)
    const kind = pick(Draws.baseFaultKinds)
    const ms = kind === "latency" ? int(1, 300) : int(100, leaseMs * 3)
    faults.push({
      process: pick(schedule.processes).id,
      operation,
      nth: int(0, operation === "renewPermits" ? 15 : 6),
      fault: Fault.isInstant(kind) ? { kind } : { kind, ms }
    })
  }
  const used = [...new Set(sections.filter((s) => s.semaphore !== undefined).map((s) => s.process))].sort()
  faults.push(...stuckHolders(used, leaseMs, next))
  return { ...schedule, sections, faults: [...schedule.faults, ...faults] }
}

/**
 * Holders the others must wait out and remove, among the processes `used` (those that take permits): every attempt
 * of a release fails (the lease is left to expire), sometimes after renews that hang past the lease.
 *
 * @since 1.0.0
 * @category generators
 */
export const stuckHolders = (
  used: ReadonlyArray<string>,
  leaseMs: number,
  next: () => number
): Array<Fault.ScheduledFault> => {
  const { int, pick } = Draws.make(next)
  const faults: Array<Fault.ScheduledFault> = []
  const stuck = used.length === 0 ? 0 : int(1, 3)
  for (let i = 0; i < stuck; i++) {
    const process = pick(used)
    const nth = int(0, 3)
    for (let k = 0; k < releaseAttempts; k++) {
      faults.push({ process, operation: "releasePermits", nth: nth + k, fault: { kind: "fatal" } })
    }
    if (next() < 0.5) {
      faults.push({
        process,
        operation: "renewPermits",
        nth: int(0, 5),
        fault: { kind: "hang", ms: int(leaseMs, leaseMs * 3) }
      })
    }
  }
  return faults
}
