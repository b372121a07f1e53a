/**
 * Random schedules from a seed: a base of processes, sections and store faults drawn from one stream, and what each
 * class adds on top drawn from another.
 *
 * @since 1.0.0
 */
import * as BadOption from "./BadOption.js"
import * as ContendedSchedule from "./ContendedSchedule.js"
import * as Draws from "./Draws.js"
import * as Fault from "./Fault.js"
import * as LateSchedule from "./LateSchedule.js"
import * as MultiSchedule from "./MultiSchedule.js"
import * as PermitSchedule from "./PermitSchedule.js"
import * as Prng from "./Prng.js"
import * as ReadWriteSchedule from "./ReadWriteSchedule.js"
import * as Schedule from "./Schedule.js"
import * as SectionDraws from "./SectionDraws.js"
import * as SessionSchedule from "./SessionSchedule.js"

const storeOperations: ReadonlyArray<Fault.Operation> = ["tryAcquire", "renew", "renew", "release"]

/**
 * Seeded share of each class when no mode is asked for. A class added later takes its share from `safe` and comes
 * right after it, so that every other seed keeps its class (and the failing seeds the guides cite stay what they were).
 */
const modeShares: ReadonlyArray<readonly [Schedule.Mode, number]> = [
  ["safe", 0.01],
  ["readWrite", 0.02],
  ["multi", 0.07],
  ["session", 0.07],
  ["contended", 0.07],
  ["late", 0.07],
  ["skew", 0.1],
  ["longPause", 0.1],
  ["wrapped", 0.07],
  ["reentry", 0.07],
  ["steal", 0.07],
  ["clockStep", 0.07],
  ["badOptions", 0.07],
  ["handOff", 0.07],
  ["semaphore", 0.07]
]

const hour = 3_600_000

/**
 * A random schedule from a seed. The same seed always gives the same schedule. `mode` defaults to a seeded choice,
 * some of every class.
 *
 * @since 1.0.0
 * @category constructors
 */
export const generate = (
  seed: number,
  options?: { readonly mode?: Schedule.Mode | undefined }
): Schedule.Schedule => {
  const next = Prng.make(seed)
  const { int, pick } = Draws.make(next)
  const timings = Schedule.defaultTimings
  const modeDraw = next()
  let mode: Schedule.Mode = options?.mode ?? "safe"
  if (options?.mode === undefined) {
    let share = 0
    for (const [m, p] of modeShares) {
      share += p
      mode = m
      if (modeDraw < share) break
    }
  }
  const takeover = next() < 0.5 ? "absolute" : "observed"
  const horizonMs = 15_000
  const processCount = int(2, 4)
  // Within the bound: any two offsets differ by less than maxClockSkew.
  const withinSkew = () => Math.round((next() - 0.5) * 0.98 * timings.maxClockSkewMs)
  const skewed = mode === "skew" ? int(0, processCount - 1) : -1
  const paused = mode === "longPause" ? int(0, processCount - 1) : -1
  const processes: Array<Schedule.ProcessSpec> = []
  for (let i = 0; i < processCount; i++) {
    const offsetMs = i === skewed
      ? (next() < 0.5 ? -1 : 1) * Math.round(timings.maxClockSkewMs * (1.5 + next() * 1.5))
      : withinSkew()
    const pauses: Array<Schedule.Pause> = []
    let at = int(0, 3_000)
    const count = i === paused ? 1 : int(0, 3)
    for (let k = 0; k < count && at < horizonMs; k++) {
      const ms = i === paused
        ? int(Math.round(timings.leaseMs * 1.2), timings.leaseMs * 3)
        : int(10, timings.safetyMarginMs - 20)
      pauses.push({ at, ms })
      at += ms + int(timings.leaseMs, timings.leaseMs * 3)
    }
    processes.push({ id: `p${i + 1}`, offsetMs, pauses })
  }
  const names = ["a", "b"].slice(0, int(1, 2))
  const sections: Array<Schedule.SectionSpec> = []
  const sectionCount = int(3, 8)
  for (let i = 0; i < sectionCount; i++) {
    sections.push({
      process: pick(processes).id,
      name: pick(names),
      at: int(0, 9_000),
      steps: int(1, 6),
      stepMs: int(50, 700),
      wait: next() < 0.5 ? "forever" : int(0, 4_000),
      api: next() < 0.5 ? "withLock" : "acquire"
    })
  }
  sections.sort((x, y) => x.at - y.at)
  const faults: Array<Fault.ScheduledFault> = []
  const faultCount = int(0, 10)
  for (let i = 0; i < faultCount; i++) {
    const operation = pick(storeOperations)
    const kind = pick(Draws.baseFaultKinds)
    const ms = kind === "latency" ? int(1, 300) : int(100, timings.leaseMs * 3)
    faults.push({
      process: pick(processes).id,
      operation,
      nth: int(0, operation === "renew" ? 15 : 6),
      fault: Fault.isInstant(kind) ? { kind } : { kind, ms }
    })
  }
  // Faults on reservations come from a stream of their own, so that they never shift the draws above.
  faults.push(...reserveFaults(Prng.make(seed ^ 0x27d4eb2f), processes))
  const base: Schedule.Schedule = { seed, mode, takeover, timings, processes, sections, faults, horizonMs }
  // What a class adds comes from a stream of its own, so that it never shifts the draws of the base schedule.
  return extend(base, Prng.make(seed ^ 0x5bd1e995))
}
/** A few faults on `reserve`, of any kind: a reservation that fails or hangs must never fail or stall an acquire. */
const reserveFaults = (
  next: () => number,
  processes: ReadonlyArray<Schedule.ProcessSpec>
): Array<Fault.ScheduledFault> => {
  const { int, pick } = Draws.make(next)
  const faults: Array<Fault.ScheduledFault> = []
  const count = int(0, 3)
  for (let i = 0; i < count; i++) {
    const kind = pick(Draws.baseFaultKinds)
    faults.push({
      process: pick(processes).id,
      operation: "reserve",
      nth: int(0, 3),
      fault: kind === "retryable" || kind === "fatal" || kind === "lostResponse"
        ? { kind }
        : { kind, ms: int(1, 3_000) }
    })
  }
  return faults
}

/**
 * `s` in a region among other code (`Schedule.RegionSpec`): a sibling job or a fiber forked before the acquire for a
 * wrapped api, a detached worker for any; and, but beside a sibling job, sometimes a child forked once it holds the
 * lock, which re-enters it.
 */
const withRegion = (s: Schedule.SectionSpec, next: () => number): Schedule.SectionSpec => {
  const { int, pick } = Draws.make(next)
  const wrapped = Schedule.wrappedApis.includes(s.api)
  const kind = wrapped ? pick(["sibling", "forkedBefore", "detached"] as const) : "detached"
  const region: Schedule.RegionSpec = kind === "detached"
    ? { kind, outerEnds: next() < 0.5, outerMs: int(200, 3_000) }
    : { kind, afterMs: int(0, s.steps * s.stepMs), waitMs: int(0, 1_500), steps: int(1, 3), stepMs: int(50, 300) }
  const child: Schedule.ChildSpec | undefined = kind !== "sibling" && next() < 0.4
    ? { afterMs: int(0, s.steps * s.stepMs), nested: next() < 0.5, steps: int(1, 4), stepMs: int(50, 500) }
    : undefined
  return { ...s, region, ...(child === undefined ? {} : { child }) }
}

/** Adds what `schedule.mode` needs beyond the base schedule, drawing from `next`. */
const extend = (schedule: Schedule.Schedule, next: () => number): Schedule.Schedule => {
  const { int, pick } = Draws.make(next)
  const wrap = (s: Schedule.SectionSpec): Schedule.SectionSpec => {
    const api = pick(Schedule.wrappedApis)
    return api === "acquireInTimeout" ? { ...s, api, timeoutMs: int(200, 6_000) } : { ...s, api }
  }
  switch (schedule.mode) {
    case "safe":
    case "skew":
    case "longPause":
      return schedule
    case "wrapped": {
      // Renews that hang past the local deadline: the lease expires while the section runs.
      const used = [...new Set(schedule.sections.map((s) => s.process))].sort()
      const hangs: Array<Fault.ScheduledFault> = []
      const count = int(2, 4)
      for (let i = 0; i < count; i++) {
        hangs.push({
          process: pick(used),
          operation: "renew",
          nth: int(0, 5),
          fault: { kind: "hang", ms: int(schedule.timings.leaseMs, schedule.timings.leaseMs * 3) }
        })
      }
      // Long enough to have steps left when the lease runs out.
      const sections = schedule.sections.map((s) => next() < 0.75 ? wrap(SectionDraws.lengthen(s, next)) : s)
      // Regions among other code come from a stream of their own, so that they never shift the draws above.
      const shapes = Prng.make(schedule.seed ^ 0x1b873593)
      return {
        ...schedule,
        faults: [...schedule.faults, ...hangs],
        sections: sections.map((s) => shapes() < 0.6 ? withRegion(s, shapes) : s)
      }
    }
    case "reentry":
      return {
        ...schedule,
        sections: schedule.sections.map((s) =>
          next() < 0.7
            ? {
              ...s,
              child: {
                // Often while the section still holds its lock, sometimes well after it released it.
                afterMs: int(0, s.steps * s.stepMs + 3_000),
                nested: next() < 0.5,
                steps: int(1, 6),
                stepMs: int(50, 700)
              }
            }
            : s
        )
      }
    case "steal": {
      const names = [...new Set(schedule.sections.map((s) => s.name))].sort()
      const steals: Array<Schedule.Steal> = []
      const count = int(1, 4)
      for (let i = 0; i < count; i++) steals.push({ at: int(0, 12_000), name: pick(names) })
      steals.sort((x, y) => x.at - y.at)
      return { ...schedule, steals, sections: schedule.sections.map((s) => next() < 0.4 ? wrap(s) : s) }
    }
    case "clockStep": {
      // At least one process that takes locks.
      const busy = pick(schedule.sections).process
      const stepped = schedule.processes.findIndex((p) => p.id === busy)
      const processes = schedule.processes.map((p, i) => {
        if (i !== stepped && next() < 0.6) return p
        const clockSteps: Array<Schedule.ClockStep> = []
        let at = int(0, 7_000)
        const count = int(1, 2)
        for (let k = 0; k < count && at < schedule.horizonMs; k++) {
          const draw = next()
          // Freezes long enough for an observer to see a holder's record stay the same for a full lease.
          const step: Schedule.ClockStep = draw < 0.6
            ? { at, kind: "freeze", ms: int(3_000, 9_000) }
            : draw < 0.85
            ? { at, kind: "jump", ms: (next() < 0.5 ? -1 : 1) * int(hour / 2, 2 * hour) }
            : { at, kind: "jump", ms: (next() < 0.5 ? -1 : 1) * int(2_000, 20_000) }
          clockSteps.push(step)
          at += (step.kind === "freeze" ? step.ms : 0) + int(500, 5_000)
        }
        return { ...p, clockSteps }
      })
      // Sections that hold the lock for longer than a lease, and waiters that watch them meanwhile.
      const sections = schedule.sections.map((s) =>
        next() < 0.6 ? { ...SectionDraws.lengthen(s, next), wait: next() < 0.7 ? "forever" as const : s.wait } : s
      )
      return { ...schedule, processes, sections }
    }
    case "badOptions":
      return {
        ...schedule,
        sections: schedule.sections.map((s) => next() < 0.5 ? { ...s, badOption: pick(BadOption.badOptions) } : s)
      }
    case "semaphore":
      return PermitSchedule.withSemaphores(schedule, next)
    case "handOff":
      return {
        ...schedule,
        sections: schedule.sections.map((s) => next() < 0.6 ? SectionDraws.handedOff(schedule, s, next) : s)
      }
    case "late":
      return LateSchedule.withLateDelivery(schedule, next)
    case "contended":
      return ContendedSchedule.withContention(schedule, next)
    case "session":
      return SessionSchedule.withSessions(schedule, next)
    case "multi":
      return MultiSchedule.withMultiLocks(schedule, next)
    case "readWrite":
      return ReadWriteSchedule.withReadWriteLocks(schedule, next)
  }
}
