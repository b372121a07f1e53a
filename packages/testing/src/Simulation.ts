/**
 * Seeded simulations of several processes sharing one lock store: each process has its own wall clock offset, its
 * own pauses (GC-pause style: its timers fire late and its store calls and section steps wait), and its own injected
 * store faults. A run records every critical section on the true timeline and every write to a fenced resource.
 *
 * A run is a discrete-event simulation: fibers run on a synchronous scheduler and time jumps from one timer to the
 * next, so a schedule replays exactly from its description and thousands of schedules run in seconds.
 *
 * @since 0.1.0
 */
import { Lock, type LockError, LockStore } from "@leasehold/lock"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import * as Runtime from "effect/Runtime"
import * as FaultyStore from "./FaultyStore.js"
import { prng } from "./internal/prng.js"
import { Gate, processClock, Timeline } from "./internal/timeline.js"

/**
 * What a schedule tests. `safe`: skew within `maxClockSkew` and pauses shorter than `safetyMargin`, so every
 * invariant must hold. `skew`: one process's clock is off by more than `maxClockSkew`. `longPause`: one process
 * pauses for longer than the lease.
 *
 * @since 0.1.0
 * @category models
 */
export type Mode = "safe" | "skew" | "longPause"

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
  /** `withLock` (loss fails the section with LockLost) or scoped `acquire` (loss interrupts the fiber). */
  readonly api: "withLock" | "acquire"
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
  | "notAcquired"
  | "storeError"
  | "defect"
  | "unfinished"

/**
 * One planned section: whether it got the lock, and if so when its critical section ran on the true timeline.
 *
 * @since 0.1.0
 * @category models
 */
export interface SectionRecord {
  readonly index: number
  readonly process: string
  readonly name: string
  readonly api: SectionSpec["api"]
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
  readonly section: number
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

/**
 * A random schedule from a seed. The same seed always gives the same schedule. `mode` defaults to a seeded choice:
 * mostly `safe`, some `skew` and `longPause`.
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
  const mode: Mode = options?.mode ?? (modeDraw < 0.7 ? "safe" : modeDraw < 0.85 ? "skew" : "longPause")
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
  return { seed, mode, takeover, timings, processes, sections, faults, horizonMs }
}

/** How long after the horizon the finalizers (releases with their timeouts) may take. */
const drainMs = 120_000

const describeStatus = (status: Lock.LeaseStatus): string =>
  status._tag === "Lost" ? `Lost(${status.error.reason})` : status._tag

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
    return [spec.id, { spec, gate, store, clock: processClock(timeline, spec.offsetMs, gate) }] as const
  }))

  const section = (spec: SectionSpec, index: number) => {
    const process = processes.get(spec.process)!
    const record: SectionRecord = {
      index,
      process: spec.process,
      name: spec.name,
      api: spec.api,
      fence: undefined,
      start: undefined,
      end: undefined,
      outcome: "unfinished",
      finishedAt: undefined,
      leaseStatus: undefined,
      detail: undefined
    }
    sections.push(record)
    const options: Lock.LockOptions = {
      lease: t.leaseMs,
      heartbeat: t.heartbeatMs,
      safetyMargin: t.safetyMarginMs,
      maxClockSkew: t.maxClockSkewMs,
      pollInterval: t.pollIntervalMs,
      takeover: schedule.takeover,
      wait: spec.wait,
      holder: `${spec.process}#${index}`
    }
    const write = (fence: number) =>
      Effect.sync(() => {
        const result = resource.write(spec.name, fence)
        writes.push({
          at: timeline.now,
          name: spec.name,
          fence,
          section: index,
          accepted: result.accepted,
          highestBefore: result.highestBefore
        })
      })
    const body = (lease: Lock.Lease) =>
      Effect.gen(function*() {
        record.fence = lease.fence
        record.start = timeline.now
        yield* write(lease.fence)
        for (let k = 0; k < spec.steps; k++) {
          yield* Effect.sleep(spec.stepMs)
          yield* write(lease.fence)
        }
      }).pipe(
        Effect.ensuring(Effect.flatMap(lease.status, (status) =>
          Effect.sync(() => {
            record.end = timeline.now
            record.leaseStatus = describeStatus(status)
          })))
      )
    const use: Effect.Effect<void, LockError.LockError, LockStore.LockStore> = spec.api === "withLock"
      ? Lock.withLock(spec.name, Effect.scoped(Effect.flatMap(Lock.acquire(spec.name), body)), options)
      : Effect.scoped(Effect.flatMap(Lock.acquire(spec.name, options), body))
    return Effect.sleep(spec.at).pipe(
      Effect.zipRight(use),
      Effect.onExit((exit) =>
        Effect.sync(() => {
          record.finishedAt = timeline.now
          if (Exit.isSuccess(exit)) {
            record.outcome = "completed"
            return
          }
          const failure = Cause.failureOption(exit.cause)
          if (Option.isSome(failure)) {
            const error = failure.value
            record.outcome = error._tag === "LockLost"
              ? "lost"
              : error._tag === "LockNotAcquired"
              ? "notAcquired"
              : error._tag === "LockStoreError"
              ? "storeError"
              : "defect"
            // Owners are random per acquisition; keep histories comparable between replays.
            record.detail = error.message.replace(/\b[0-9a-f]{32}\b/g, "<owner>")
          } else if (Cause.isDie(exit.cause)) {
            record.outcome = "defect"
            record.detail = Cause.pretty(exit.cause)
          } else {
            record.outcome = "interrupted"
          }
        })
      ),
      Effect.provideService(LockStore.LockStore, process.store),
      Effect.withClock(process.clock),
      Effect.withRandom(Random.make(`${schedule.seed}/${index}`))
    )
  }

  const main = Effect.gen(function*() {
    const fibers = yield* Effect.forEach(schedule.sections, (spec, i) => Effect.fork(section(spec, i)))
    yield* timeline.sleep(schedule.horizonMs)
    yield* Fiber.interruptAll(fibers)
  })

  const runtime = Runtime.defaultRuntime.pipe(
    Runtime.setFiberRef(FiberRef.currentScheduler, timeline.scheduler),
    Runtime.setFiberRef(FiberRef.currentMinimumLogLevel, LogLevel.None)
  )
  const fiber = Runtime.runFork(runtime)(main, { scheduler: timeline.scheduler })
  const isDone = () => fiber.unsafePoll() !== null
  timeline.runUntil(schedule.horizonMs + drainMs, isDone)
  return { schedule, sections, writes, faults, endedAt: timeline.now, finished: isDone() }
}
