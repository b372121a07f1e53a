/**
 * Seeded simulations of several processes sharing one lock store: each process has its own wall clock offset (which
 * may jump or freeze while its monotonic clock runs on), its own pauses (GC-pause style: its timers fire late and its
 * store calls and section steps wait), and its own injected store faults; an operator may force-release names. A run
 * records every critical section on the true timeline and every write to a fenced resource.
 *
 * A run is a discrete-event simulation: fibers run on a synchronous scheduler and time jumps from one timer to the
 * next, so a schedule replays exactly from its description and thousands of schedules run in seconds.
 *
 * @since 0.1.0
 */
import { Lock, LockStore } from "@leasehold/lock"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import * as FaultyStore from "./FaultyStore.js"
import { prng } from "./internal/prng.js"
import { Gate, processClock, Timeline } from "./internal/timeline.js"

/**
 * What a schedule tests (its class). Apart from what each class adds, skew stays within `maxClockSkew` and pauses
 * shorter than `safetyMargin`.
 *
 * - `safe`: nothing beyond that, so every invariant must hold.
 * - `skew`: one process's clock is off by more than `maxClockSkew`.
 * - `longPause`: one process pauses for longer than the lease.
 * - `wrapped`: some sections acquire inside `Effect.timeout`, `Effect.race`, `Effect.all` or a layer built in the
 *   section's scope, so the fiber that ran the acquire ends before the section does.
 * - `reentry`: some sections fork a child (`Effect.fork` under `acquire`, `Effect.forkDaemon` under `withLock`) that
 *   later takes the same name, possibly nested, and may outlive the section.
 * - `steal`: an operator force-releases names at random times; some sections are `wrapped` ones.
 * - `clockStep`: some processes' wall clocks jump (by seconds or an hour, either way) or freeze for a while; their
 *   monotonic clocks run on.
 * - `badOptions`: some sections pass an invalid option (NaN, a negative duration, an infinite one, a warning point
 *   inside the safety margin).
 *
 * @since 0.1.0
 * @category models
 */
export type Mode = "safe" | "skew" | "longPause" | "wrapped" | "reentry" | "steal" | "clockStep" | "badOptions"

/**
 * Every class, in the order summaries print them.
 *
 * @since 0.1.0
 * @category constants
 */
export const modes: ReadonlyArray<Mode> = [
  "safe",
  "skew",
  "longPause",
  "wrapped",
  "reentry",
  "steal",
  "clockStep",
  "badOptions"
]

/**
 * A step of a process's wall clock at true time `at`: `jump` moves it by `ms` at once (negative: back); `freeze`
 * makes it stand still for `ms`, after which it runs on from where it stopped (so it stays `ms` behind). The
 * process's monotonic clock is not affected.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClockStep {
  readonly at: number
  readonly kind: "jump" | "freeze"
  readonly ms: number
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Pause {
  /** True time (ms from the start) the pause begins. */
  readonly at: number
  readonly ms: number
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ProcessSpec {
  readonly id: string
  /** This process's wall clock minus true time, in ms. Its monotonic clock is not skewed. */
  readonly offsetMs: number
  readonly pauses: ReadonlyArray<Pause>
  /** Steps of the wall clock on top of `offsetMs`. */
  readonly clockSteps?: ReadonlyArray<ClockStep> | undefined
}

/**
 * How a section takes its lock. `withLock`: loss fails the section with `LockLost`. `acquire`: scoped, loss
 * interrupts the fiber. The others are a scoped `acquire` run by a fiber that ends before the section: inside
 * `Effect.timeout` (of `SectionSpec.timeoutMs`), `Effect.race` with `Effect.never`, `Effect.all` with another effect
 * and `concurrency: 2`, and a scoped layer merged with another and built with `Layer.buildWithScope`. The section's
 * steps then run in the fiber that owns the scope.
 *
 * @since 0.1.0
 * @category models
 */
export type Api = "withLock" | "acquire" | "acquireInTimeout" | "acquireInRace" | "acquireInAll" | "acquireInLayer"

/**
 * The acquire variants whose acquiring fiber ends before the section.
 *
 * @since 0.1.0
 * @category constants
 */
export const wrappedApis: ReadonlyArray<Api> = ["acquireInTimeout", "acquireInRace", "acquireInAll", "acquireInLayer"]

/**
 * A child a section forks as soon as it holds its lock (with `Effect.fork` under `acquire`, after which the section's
 * fiber joins it once its lock is released; with `Effect.forkDaemon` under `withLock`). `afterMs` later the child runs
 * `withLock` on the same name (twice nested if `nested`), then a scoped `acquire` of it for the lease, and `steps`
 * steps of `stepMs` that write to the fenced resource with that lease's fence.
 *
 * @since 0.1.0
 * @category models
 */
export interface ChildSpec {
  readonly afterMs: number
  readonly nested: boolean
  readonly steps: number
  readonly stepMs: number
}

/**
 * An invalid option a section passes on top of the schedule's timings. The core must refuse each of them with
 * `LockConfigError` before any store call.
 *
 * @since 0.1.0
 * @category models
 */
export type BadOption =
  | "maxClockSkewNaN"
  | "maxClockSkewNegativeString"
  | "maxClockSkewNegativeDuration"
  | "safetyMarginNegativeBigint"
  | "maxClockSkewInfinite"
  | "waitNaN"
  | "warnAtInsideMargin"
  | "heartbeatNegative"

/**
 * Every kind of invalid option, for generators.
 *
 * @since 0.1.0
 * @category constants
 */
export const badOptions: ReadonlyArray<BadOption> = [
  "maxClockSkewNaN",
  "maxClockSkewNegativeString",
  "maxClockSkewNegativeDuration",
  "safetyMarginNegativeBigint",
  "maxClockSkewInfinite",
  "waitNaN",
  "warnAtInsideMargin",
  "heartbeatNegative"
]

/**
 * The options a bad-option kind stands for, and how to show them.
 *
 * @since 0.1.0
 * @category models
 */
export const badOptionValue = (
  bad: BadOption,
  timings: LockTimings
): { readonly options: Lock.LockOptions; readonly show: string } => {
  switch (bad) {
    case "maxClockSkewNaN":
      return { options: { maxClockSkew: NaN }, show: "maxClockSkew: NaN" }
    case "maxClockSkewNegativeString":
      return { options: { maxClockSkew: "-10 seconds" }, show: `maxClockSkew: "-10 seconds"` }
    case "maxClockSkewNegativeDuration":
      return { options: { maxClockSkew: Duration.millis(-10_000) }, show: "maxClockSkew: Duration.millis(-10000)" }
    case "safetyMarginNegativeBigint":
      return { options: { safetyMargin: -5n }, show: "safetyMargin: -5n" }
    case "maxClockSkewInfinite":
      return { options: { maxClockSkew: Infinity }, show: "maxClockSkew: Infinity" }
    case "waitNaN":
      return { options: { wait: NaN }, show: "wait: NaN" }
    case "warnAtInsideMargin": {
      // At risk from the moment it is acquired: the warning point lies before the lease's local deadline.
      const warnAt = timings.leaseMs - Math.round(timings.safetyMarginMs / 2)
      return {
        options: { warnAt },
        show: `warnAt: ${warnAt} (lease ${timings.leaseMs}, safetyMargin ${timings.safetyMarginMs})`
      }
    }
    case "heartbeatNegative":
      return { options: { heartbeat: -timings.heartbeatMs }, show: `heartbeat: ${-timings.heartbeatMs}` }
  }
}

/**
 * One planned use of a lock: at true time `at` the process tries to take `name` and, once it holds it, runs `steps`
 * steps of `stepMs`, each ending in a write to the fenced resource (the first write is at the start).
 *
 * @since 0.1.0
 * @category models
 */
export interface SectionSpec {
  readonly process: string
  readonly name: string
  readonly at: number
  readonly steps: number
  readonly stepMs: number
  /** Milliseconds to wait for the lock, or "forever". */
  readonly wait: number | "forever"
  readonly api: Api
  /** The `Effect.timeout` around the acquire of `acquireInTimeout`, in ms. */
  readonly timeoutMs?: number | undefined
  readonly child?: ChildSpec | undefined
  readonly badOption?: BadOption | undefined
}

/**
 * An operator's `forceRelease` of `name` at true time `at`, straight on the store.
 *
 * @since 0.1.0
 * @category models
 */
export interface Steal {
  readonly at: number
  readonly name: string
}

/**
 * Lock options every process uses, in ms.
 *
 * @since 0.1.0
 * @category models
 */
export interface LockTimings {
  readonly leaseMs: number
  readonly heartbeatMs: number
  readonly safetyMarginMs: number
  readonly maxClockSkewMs: number
  readonly pollIntervalMs: number
}

/**
 * A complete, replayable description of one run.
 *
 * @since 0.1.0
 * @category models
 */
export interface Schedule {
  readonly seed: number
  readonly mode: Mode
  readonly takeover: "absolute" | "observed"
  readonly timings: LockTimings
  readonly processes: ReadonlyArray<ProcessSpec>
  readonly sections: ReadonlyArray<SectionSpec>
  readonly faults: ReadonlyArray<FaultyStore.ScheduledFault>
  readonly steals?: ReadonlyArray<Steal> | undefined
  /** When planned work stops and every remaining fiber is interrupted, in true ms. */
  readonly horizonMs: number
}

/**
 * How a planned section ended.
 *
 * @since 0.1.0
 * @category models
 */
export type Outcome =
  | "completed"
  | "lost" // withLock failed with LockLost
  | "interrupted" // scoped acquire: the fiber was interrupted (by the loss signal or at the horizon)
  | "notAcquired" // LockNotAcquired, or the Effect.timeout of acquireInTimeout
  | "configError"
  | "storeError"
  | "defect"
  | "unfinished"

/**
 * One planned section (or a child one forked): whether it got the lock, and if so when its critical section ran on
 * the true timeline. A child has index `sections.length + its parent's index`.
 *
 * @since 0.1.0
 * @category models
 */
export interface SectionRecord {
  readonly index: number
  readonly process: string
  readonly name: string
  readonly api: Api | "child"
  /** Set when the lock was acquired. */
  fence: number | undefined
  start: number | undefined
  end: number | undefined
  outcome: Outcome
  /** True time the planned use ended (acquired or not). */
  finishedAt: number | undefined
  /** The lease status when the section ended: "Held", "Lost(expired)", ... */
  leaseStatus: string | undefined
  detail: string | undefined
  /** True time the lease's status became Lost, while the section ran. */
  lostAt?: number | undefined
  /** True time the use was called (after the section's `at`, or the child's `afterMs`). */
  requestedAt?: number | undefined
  /** A child: the section that forked it. */
  parent?: number | undefined
  /** A child that ran on its parent's lease (re-entered it): its writes count as the parent's. */
  borrowedFrom?: number | undefined
  /** A child: true time its outermost `withLock` ran its body (before the nested uses). */
  outerEnteredAt?: number | undefined
  /** The fence of the `LockLost` the use failed with. */
  lostFence?: number | undefined
  /** The reason of the `LockLost` the use failed with. */
  lostReason?: string | undefined
}

/**
 * One write to the fenced resource.
 *
 * @since 0.1.0
 * @category models
 */
export interface WriteRecord {
  readonly at: number
  readonly name: string
  readonly fence: number
  /** The section whose critical section the write belongs to (a child on a borrowed lease writes for its parent). */
  readonly section: number
  /** The use that wrote, when not `section` itself: a child. */
  readonly by?: number | undefined
  readonly accepted: boolean
  /** The highest fence the resource had seen for this name before the write. */
  readonly highestBefore: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface FaultRecord {
  readonly at: number
  readonly call: FaultyStore.Call
  readonly fault: FaultyStore.Fault
}

/**
 * An operator's force release as it happened: `fence` and `holder` of the lease it cleared, if one was held.
 *
 * @since 0.1.0
 * @category models
 */
export interface StealRecord {
  readonly at: number
  readonly name: string
  readonly fence: number | undefined
  readonly holder: string | undefined
}

/**
 * Everything a run observed.
 *
 * @since 0.1.0
 * @category models
 */
export interface History {
  readonly schedule: Schedule
  readonly sections: ReadonlyArray<SectionRecord>
  readonly writes: ReadonlyArray<WriteRecord>
  readonly faults: ReadonlyArray<FaultRecord>
  readonly steals?: ReadonlyArray<StealRecord> | undefined
  /** True time when the last fiber finished. */
  readonly endedAt: number
  /** Whether every fiber finished before the simulation's time cap. */
  readonly finished: boolean
}

/**
 * A downstream store that accepts a write only if its fence is at least the highest it has seen for the name: what
 * the README asks users to put behind their locks.
 *
 * @since 0.1.0
 * @category models
 */
export interface FencedResource {
  readonly write: (name: string, fence: number) => { readonly accepted: boolean; readonly highestBefore?: number }
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const makeFencedResource = (): FencedResource => {
  const highest = new Map<string, number>()
  return {
    write: (name, fence) => {
      const before = highest.get(name)
      if (before !== undefined && fence < before) return { accepted: false, highestBefore: before }
      highest.set(name, fence)
      return before === undefined ? { accepted: true } : { accepted: true, highestBefore: before }
    }
  }
}

/**
 * Runs `self` with a wall clock `offsetMs` ahead of (negative: behind) the clock in context, e.g. `TestClock`, for a
 * process with a skewed clock in an `it.effect` test. Monotonic time (deadlines) and sleeps are left as they are.
 *
 * @since 0.1.0
 * @category clocks
 */
export const withClockOffset = (offsetMs: number) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.clockWith((base) => {
    const wall = () => base.unsafeCurrentTimeMillis() + offsetMs
    const skewed: Clock.Clock = {
      [Clock.ClockTypeId]: Clock.ClockTypeId,
      unsafeCurrentTimeMillis: wall,
      currentTimeMillis: Effect.sync(wall),
      unsafeCurrentTimeNanos: () => base.unsafeCurrentTimeNanos(),
      currentTimeNanos: base.currentTimeNanos,
      sleep: (duration) => base.sleep(duration)
    }
    return Effect.withClock(self, skewed)
  })

/**
 * The timings the generated schedules use: short, so a schedule is a few simulated seconds.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultTimings: LockTimings = {
  leaseMs: 2_000,
  heartbeatMs: 600,
  safetyMarginMs: 400,
  maxClockSkewMs: 1_000,
  pollIntervalMs: 200
}

const storeOperations: ReadonlyArray<FaultyStore.Operation> = ["tryAcquire", "renew", "renew", "release"]

/** Seeded share of each class when no mode is asked for: mostly `safe`. */
const modeShares: ReadonlyArray<readonly [Mode, number]> = [
  ["safe", 0.45],
  ["skew", 0.1],
  ["longPause", 0.1],
  ["wrapped", 0.07],
  ["reentry", 0.07],
  ["steal", 0.07],
  ["clockStep", 0.07],
  ["badOptions", 0.07]
]

const hour = 3_600_000

/**
 * A random schedule from a seed. The same seed always gives the same schedule. `mode` defaults to a seeded choice:
 * mostly `safe`, some of every other class.
 *
 * @since 0.1.0
 * @category constructors
 */
export const generate = (seed: number, options?: { readonly mode?: Mode | undefined }): Schedule => {
  const next = prng(seed)
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1))
  const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(next() * items.length)]!
  const timings = defaultTimings
  const modeDraw = next()
  let mode: Mode = options?.mode ?? "safe"
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
  const processes: Array<ProcessSpec> = []
  for (let i = 0; i < processCount; i++) {
    const offsetMs = i === skewed
      ? (next() < 0.5 ? -1 : 1) * Math.round(timings.maxClockSkewMs * (1.5 + next() * 1.5))
      : withinSkew()
    const pauses: Array<Pause> = []
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
  const sections: Array<SectionSpec> = []
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
  const faults: Array<FaultyStore.ScheduledFault> = []
  const faultCount = int(0, 10)
  for (let i = 0; i < faultCount; i++) {
    const operation = pick(storeOperations)
    const kind = pick(FaultyStore.faultKinds)
    const ms = kind === "latency" ? int(1, 300) : int(100, timings.leaseMs * 3)
    faults.push({
      process: pick(processes).id,
      operation,
      nth: int(0, operation === "renew" ? 15 : 6),
      fault: kind === "retryable" || kind === "fatal" || kind === "lostResponse" ? { kind } : { kind, ms }
    })
  }
  const base: Schedule = { seed, mode, takeover, timings, processes, sections, faults, horizonMs }
  // What the newer classes add comes from a stream of its own, so that the classes above keep their schedules.
  return extend(base, prng(seed ^ 0x5bd1e995))
}

/** Adds what `schedule.mode` needs beyond the base schedule, drawing from `next`. */
const extend = (schedule: Schedule, next: () => number): Schedule => {
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1))
  const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(next() * items.length)]!
  const lengthen = (s: SectionSpec): SectionSpec => ({
    ...s,
    steps: Math.max(s.steps, int(3, 6)),
    stepMs: Math.max(s.stepMs, int(300, 700))
  })
  const wrap = (s: SectionSpec): SectionSpec => {
    const api = pick(wrappedApis)
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
      const hangs: Array<FaultyStore.ScheduledFault> = []
      const count = int(2, 4)
      for (let i = 0; i < count; i++) {
        hangs.push({
          process: pick(used),
          operation: "renew",
          nth: int(0, 5),
          fault: { kind: "hang", ms: int(schedule.timings.leaseMs, schedule.timings.leaseMs * 3) }
        })
      }
      return {
        ...schedule,
        faults: [...schedule.faults, ...hangs],
        // Long enough to have steps left when the lease runs out.
        sections: schedule.sections.map((s) => next() < 0.75 ? wrap(lengthen(s)) : s)
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
      const steals: Array<Steal> = []
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
        const clockSteps: Array<ClockStep> = []
        let at = int(0, 7_000)
        const count = int(1, 2)
        for (let k = 0; k < count && at < schedule.horizonMs; k++) {
          const draw = next()
          // Freezes long enough for an observer to see a holder's record stay the same for a full lease.
          const step: ClockStep = draw < 0.6
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
        next() < 0.6 ? { ...lengthen(s), wait: next() < 0.7 ? "forever" as const : s.wait } : s
      )
      return { ...schedule, processes, sections }
    }
    case "badOptions":
      return {
        ...schedule,
        sections: schedule.sections.map((s) => next() < 0.5 ? { ...s, badOption: pick(badOptions) } : s)
      }
  }
}

/** How long after the horizon the finalizers (releases with their timeouts) may take. */
const drainMs = 120_000

const describeStatus = (status: Lock.LeaseStatus): string =>
  status._tag === "Lost" ? `Lost(${status.error.reason})` : status._tag

/** The wall clock offset of a process at a true time: its constant offset plus its clock's steps so far. */
const wallOffset = (spec: ProcessSpec): number | ((now: number) => number) => {
  const steps = [...(spec.clockSteps ?? [])].sort((x, y) => x.at - y.at)
  if (steps.length === 0) return spec.offsetMs
  return (now) => {
    let offset = spec.offsetMs
    for (const step of steps) {
      if (step.at > now) break
      offset += step.kind === "jump" ? step.ms : -Math.min(now - step.at, step.ms)
    }
    return offset
  }
}

/** The lease a layer-built acquire leaves in the layer's context. */
const SectionLease = Context.GenericTag<Lock.Lease>("@leasehold/testing/Simulation/SectionLease")
/** Something else the section's layer provides, built next to the lease. */
const SectionOther = Context.GenericTag<{ readonly ready: true }>("@leasehold/testing/Simulation/SectionOther")

/** Owners are random per acquisition; keep histories comparable between replays. */
const withoutOwners = (text: string) => text.replace(/\b[0-9a-f]{32}\b/g, "<owner>")

const newRecord = (index: number, process: string, name: string, api: SectionRecord["api"]): SectionRecord => ({
  index,
  process,
  name,
  api,
  fence: undefined,
  start: undefined,
  end: undefined,
  outcome: "unfinished",
  finishedAt: undefined,
  leaseStatus: undefined,
  detail: undefined
})

/**
 * Runs a schedule to the end and returns what happened. Synchronous and deterministic: no real time passes.
 *
 * @since 0.1.0
 * @category running
 */
export const run = (schedule: Schedule): History => {
  const timeline = new Timeline()
  const backing = LockStore.makeMemory()
  const resource = makeFencedResource()
  const sections: Array<SectionRecord> = []
  const writes: Array<WriteRecord> = []
  const faults: Array<FaultRecord> = []
  const steals: Array<StealRecord> = []
  /** Daemon children and loss watchers: nothing else interrupts them at the horizon. */
  const daemons: Array<Fiber.RuntimeFiber<void>> = []
  const plan = FaultyStore.fromList(schedule.faults)
  const t = schedule.timings

  const processes = new Map(schedule.processes.map((spec) => {
    const gate = new Gate()
    for (const pause of spec.pauses) {
      timeline.schedule(pause.at, () => gate.pause())
      timeline.schedule(pause.at + pause.ms, () => gate.resume())
    }
    const store = LockStore.make(FaultyStore.make(backing, {
      process: spec.id,
      plan,
      gate: gate.pass,
      onFault: (call, fault) => faults.push({ at: timeline.now, call, fault })
    }))
    return [spec.id, { spec, gate, store, clock: processClock(timeline, wallOffset(spec), gate) }] as const
  }))

  const write = (name: string, fence: number, section: number, by: number) =>
    Effect.sync(() => {
      const result = resource.write(name, fence)
      writes.push({
        at: timeline.now,
        name,
        fence,
        section,
        ...(by === section ? {} : { by }),
        accepted: result.accepted,
        highestBefore: result.highestBefore
      })
    })

  /** A write at the start, then `steps` steps of `stepMs` each ending in a write. */
  const steps = (name: string, fence: number, section: number, by: number, count: number, stepMs: number) =>
    Effect.gen(function*() {
      yield* write(name, fence, section, by)
      for (let k = 0; k < count; k++) {
        yield* Effect.sleep(stepMs)
        yield* write(name, fence, section, by)
      }
    })

  /**
   * Notes when the lease is lost, from a fiber of its own: the section may never look. A daemon, to outlive the
   * section; interrupted at the horizon, since the runtime keeps every daemon until it ends.
   */
  const watchLoss = (lease: Lock.Lease, record: SectionRecord) =>
    Effect.flatMap(
      Effect.forkDaemon(Effect.catchAll(lease.lost, () =>
        Effect.sync(() => {
          record.lostAt ??= timeline.now
        }))),
      (fiber) =>
        Effect.sync(() => {
          daemons.push(fiber)
        })
    )

  const endWith = (record: SectionRecord, lease: Lock.Lease) =>
    Effect.flatMap(lease.status, (status) =>
      Effect.sync(() => {
        record.end = timeline.now
        record.leaseStatus = describeStatus(status)
      }))

  /** Records how a use ended. */
  const outcomeOf = (record: SectionRecord) => (exit: Exit.Exit<unknown, unknown>) =>
    Effect.sync(() => {
      record.finishedAt = timeline.now
      if (Exit.isSuccess(exit)) {
        record.outcome = "completed"
        return
      }
      const failure = Cause.failureOption(exit.cause)
      if (Option.isSome(failure)) {
        const error = failure.value as {
          readonly _tag?: string
          readonly message?: string
          readonly fence?: number
          readonly reason?: string
        }
        record.outcome = error._tag === "LockLost"
          ? "lost"
          : error._tag === "LockNotAcquired" || error._tag === "TimeoutException"
          ? "notAcquired"
          : error._tag === "LockStoreError"
          ? "storeError"
          : error._tag === "LockConfigError"
          ? "configError"
          : "defect"
        if (error._tag === "LockLost") {
          record.lostFence = error.fence
          record.lostReason = error.reason
        }
        record.detail = withoutOwners(error.message ?? String(error))
      } else if (Cause.isDie(exit.cause)) {
        record.outcome = "defect"
        record.detail = Cause.pretty(exit.cause)
      } else {
        record.outcome = "interrupted"
      }
    })

  const section = (spec: SectionSpec, index: number) => {
    const process = processes.get(spec.process)!
    const record = newRecord(index, spec.process, spec.name, spec.api)
    sections.push(record)
    const options: Lock.LockOptions = {
      lease: t.leaseMs,
      heartbeat: t.heartbeatMs,
      safetyMargin: t.safetyMarginMs,
      maxClockSkew: t.maxClockSkewMs,
      pollInterval: t.pollIntervalMs,
      takeover: schedule.takeover,
      wait: spec.wait,
      holder: `${spec.process}#${index}`,
      ...(spec.badOption === undefined ? {} : badOptionValue(spec.badOption, t).options)
    }
    const forked: Array<Fiber.RuntimeFiber<void>> = []

    const child = (parent: Lock.Lease, c: ChildSpec) => {
      const childIndex = schedule.sections.length + index
      const childRecord = newRecord(childIndex, spec.process, spec.name, "child")
      childRecord.parent = index
      sections.push(childRecord)
      const childOptions: Lock.LockOptions = { ...options, holder: `${spec.process}#${childIndex}` }
      const childBody = (lease: Lock.Lease) =>
        Effect.suspend(() => {
          childRecord.fence = lease.fence
          childRecord.start = timeline.now
          const borrowed = lease.owner === parent.owner
          if (borrowed) childRecord.borrowedFrom = index
          return Effect.zipRight(
            borrowed ? Effect.void : watchLoss(lease, childRecord),
            steps(spec.name, lease.fence, borrowed ? index : childIndex, childIndex, c.steps, c.stepMs)
          )
        }).pipe(Effect.ensuring(endWith(childRecord, lease)))
      const inner = Effect.scoped(Effect.flatMap(Lock.acquire(spec.name, childOptions), childBody))
      const nested = c.nested ? Lock.withLock(spec.name, inner, childOptions) : inner
      const entered = Effect.sync(() => {
        childRecord.outerEnteredAt = timeline.now
      })
      return Effect.sleep(c.afterMs).pipe(
        Effect.zipRight(Effect.sync(() => {
          childRecord.requestedAt = timeline.now
        })),
        Effect.zipRight(Lock.withLock(spec.name, Effect.zipRight(entered, nested), childOptions)),
        Effect.onExit(outcomeOf(childRecord)),
        Effect.asVoid,
        Effect.ignore
      )
    }

    const body = (lease: Lock.Lease) =>
      Effect.gen(function*() {
        record.fence = lease.fence
        record.start = timeline.now
        yield* watchLoss(lease, record)
        if (spec.child !== undefined) {
          // Under withLock the section runs in a fiber of its own: only a daemon outlives it.
          if (spec.api === "withLock") daemons.push(yield* Effect.forkDaemon(child(lease, spec.child)))
          else forked.push(yield* Effect.fork(child(lease, spec.child)))
        }
        yield* steps(spec.name, lease.fence, index, index, spec.steps, spec.stepMs)
      }).pipe(Effect.ensuring(endWith(record, lease)))

    const inScope = <E>(acquire: Effect.Effect<Lock.Lease, E, LockStore.LockStore | Scope.Scope>) =>
      Effect.scoped(Effect.flatMap(acquire, body))
    const use = (): Effect.Effect<void, unknown, LockStore.LockStore> => {
      switch (spec.api) {
        case "withLock":
          return Lock.withLock(spec.name, Effect.scoped(Effect.flatMap(Lock.acquire(spec.name), body)), options)
        case "acquire":
          return inScope(Lock.acquire(spec.name, options))
        case "acquireInTimeout":
          return inScope(Effect.timeout(Lock.acquire(spec.name, options), Duration.millis(spec.timeoutMs ?? 1_000)))
        case "acquireInRace":
          return inScope(Effect.race(Lock.acquire(spec.name, options), Effect.never))
        case "acquireInAll":
          return inScope(Effect.map(
            Effect.all([Lock.acquire(spec.name, options), Effect.sleep(1)], { concurrency: 2 }),
            ([lease]) => lease
          ))
        case "acquireInLayer":
          return inScope(Effect.gen(function*() {
            const layer = Layer.merge(
              Layer.scoped(SectionLease, Lock.acquire(spec.name, options)),
              Layer.succeed(SectionOther, { ready: true })
            )
            const context = yield* Layer.buildWithScope(layer, yield* Effect.scope)
            return Context.get(context, SectionLease)
          }))
      }
    }
    return Effect.sleep(spec.at).pipe(
      Effect.zipRight(Effect.sync(() => {
        record.requestedAt = timeline.now
      })),
      Effect.zipRight(Effect.suspend(use)),
      Effect.onExit(outcomeOf(record)),
      Effect.ignore,
      // The section's fiber goes on to join the children it forked.
      Effect.zipRight(Effect.suspend(() => Fiber.awaitAll(forked))),
      Effect.provideService(LockStore.LockStore, process.store),
      Effect.withClock(process.clock),
      Effect.withRandom(Random.make(`${schedule.seed}/${index}`))
    )
  }

  const steal = (spec: Steal) =>
    timeline.sleep(spec.at).pipe(
      Effect.zipRight(backing.forceRelease(spec.name)),
      Effect.flatMap((cleared) =>
        Effect.sync(() => {
          steals.push({
            at: timeline.now,
            name: spec.name,
            fence: Option.isSome(cleared) ? cleared.value.fence : undefined,
            holder: Option.isSome(cleared) ? cleared.value.holder : undefined
          })
        })
      ),
      Effect.ignore
    )

  const main = Effect.gen(function*() {
    const fibers = yield* Effect.forEach(schedule.sections, (spec, i) => Effect.fork(section(spec, i)))
    const operators = yield* Effect.forEach(schedule.steals ?? [], (spec) => Effect.fork(steal(spec)))
    yield* timeline.sleep(schedule.horizonMs)
    yield* Fiber.interruptAll([...fibers, ...operators])
    yield* Fiber.interruptAll(daemons)
  })

  const runtime = Runtime.defaultRuntime.pipe(
    Runtime.setFiberRef(FiberRef.currentScheduler, timeline.scheduler),
    Runtime.setFiberRef(FiberRef.currentMinimumLogLevel, LogLevel.None)
  )
  const fiber = Runtime.runFork(runtime)(main, { scheduler: timeline.scheduler })
  const isDone = () => fiber.unsafePoll() !== null
  timeline.runUntil(schedule.horizonMs + drainMs, isDone)
  return { schedule, sections, writes, faults, steals, endedAt: timeline.now, finished: isDone() }
}
