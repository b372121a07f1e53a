/**
 * A complete, replayable description of one simulated run: its processes (clocks and pauses), the planned uses of
 * locks and semaphores, the store faults and the operator's force releases. Each Effect line runs it on its own
 * runtime; the checker and the shrinker read and rewrite it as plain data.
 *
 * @since 1.0.0
 */
import type * as ReadWriteMode from "../record/ReadWriteMode.js"
import type * as Fault from "./Fault.js"

/**
 * What a schedule tests (its class). Apart from what each class adds, skew stays within `maxClockSkew` and pauses
 * shorter than `safetyMargin`.
 *
 * - `safe`: nothing beyond that, so every invariant must hold.
 * - `skew`: one process's clock is off by more than `maxClockSkew`.
 * - `longPause`: one process pauses for longer than the lease.
 * - `wrapped`: some sections acquire inside `Effect.timeout`, `Effect.race`, `Effect.all` or a layer built in the
 *   section's scope, so the fiber that ran the acquire ends before the section does; some regions stand among other
 *   code (`RegionSpec`: a sibling job, a fiber forked before the acquire, a detached worker, a region that ended), and
 *   some sections fork a child after the acquire, which re-enters the lease.
 * - `reentry`: some sections fork a child (`Effect.fork` under `acquire`, `Effect.forkDaemon` under `withLock`) that
 *   later takes the same name, possibly nested, and may outlive the section.
 * - `steal`: an operator force-releases names at random times; some sections are `wrapped` ones.
 * - `clockStep`: some processes' wall clocks jump (by seconds or an hour, either way) or freeze for a while; their
 *   monotonic clocks run on.
 * - `badOptions`: some sections pass an invalid option (NaN, a negative duration, an infinite one, a warning point
 *   inside the safety margin).
 * - `handOff`: some sections hand their lease over midway (`Lock.handOff`) to another process (or their own), which
 *   resumes it after a delay and runs the rest of the section; some delays outlast the lease.
 * - `semaphore`: most sections take permits of a semaphore (`SectionSpec.semaphore`) instead of their name's lock,
 *   among more sections than in the other classes, with store faults on the semaphore operations.
 * - `late`: the network holds some writes after their sender gave up on them (a timeout, the DynamoDB transport's
 *   retry, an interruption) and delivers them later, out of order with the sender's later writes (the late kinds of
 *   `Fault.FaultKind`), on locks and semaphores; some sections update their data under `Effect.timeout`
 *   (`SectionSpec.updates`), hand their lease off, or wait a finite time.
 * - `contended`: every process asks for one name again and again, each section asking about when its last one would
 *   release, with a poll interval (and so a turn and a reservation length) drawn per schedule, mostly absolute
 *   takeover, and faults (some of them held writes delivered late) on the acquire, its looks and its reservations.
 * - `session`: every process holds its locks under a lease session of its own (`Schedule.sessions`), reopened when it
 *   is lost; faults (some of them renews delivered late) hit the session's renews, the reads that judge a session, and
 *   the acquires and releases, and some sections hold for longer than a lease.
 * - `multi`: most sections take several locks together (`SectionSpec.together`), each naming them in an order of its
 *   own, most waiting for ever, some first trying them in one store call (`SectionSpec.transaction`), with faults
 *   (some of them writes delivered late) on acquires (those of several locks in one call too), renews and releases.
 * - `readWrite`: most sections take a read/write lock of their name (`SectionSpec.readWrite`), most of them to read,
 *   more of them arriving while others hold, most waiting for ever; faults (some of them writes delivered late) on
 *   the permit operations and the waiters' reservations, and holders whose releases fail, which the next acquirer
 *   waits out and removes.
 *
 * @since 1.0.0
 * @category models
 */
export type Mode =
  | "safe"
  | "skew"
  | "longPause"
  | "wrapped"
  | "reentry"
  | "steal"
  | "clockStep"
  | "badOptions"
  | "handOff"
  | "semaphore"
  | "late"
  | "contended"
  | "session"
  | "multi"
  | "readWrite"

/**
 * Every class, in the order summaries print them.
 *
 * @since 1.0.0
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
  "badOptions",
  "handOff",
  "semaphore",
  "late",
  "contended",
  "session",
  "multi",
  "readWrite"
]

/**
 * A step of a process's wall clock at true time `at`: `jump` moves it by `ms` at once (negative: back); `freeze`
 * makes it stand still for `ms`, after which it runs on from where it stopped (so it stays `ms` behind). The
 * process's monotonic clock is not affected.
 *
 * @since 1.0.0
 * @category models
 */
export interface ClockStep {
  readonly at: number
  readonly kind: "jump" | "freeze"
  readonly ms: number
}

/**
 * @since 1.0.0
 * @category models
 */
export interface Pause {
  /** True time (ms from the start) the pause begins. */
  readonly at: number
  readonly ms: number
}

/**
 * @since 1.0.0
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
 * @since 1.0.0
 * @category models
 */
export type Api = "withLock" | "acquire" | "acquireInTimeout" | "acquireInRace" | "acquireInAll" | "acquireInLayer"

/**
 * The acquire variants whose acquiring fiber ends before the section.
 *
 * @since 1.0.0
 * @category constants
 */
export const wrappedApis: ReadonlyArray<Api> = [
  "acquireInTimeout",
  "acquireInRace",
  "acquireInAll",
  "acquireInLayer"
]

/**
 * A child a section forks as soon as it holds its lock (with `Effect.fork` under `acquire`, after which the section's
 * fiber joins it once its lock is released; with `Effect.forkDaemon` under `withLock`). `afterMs` later the child runs
 * `withLock` on the same name (twice nested if `nested`), then a scoped `acquire` of it for the lease, and `steps`
 * steps of `stepMs` that write to the fenced resource with that lease's fence.
 *
 * @since 1.0.0
 * @category models
 */
export interface ChildSpec {
  readonly afterMs: number
  readonly nested: boolean
  readonly steps: number
  readonly stepMs: number
}

/**
 * Where a section's region stands among other code, for the shapes in which a lease taken over by a region must go to
 * the code that asked for it and to nobody else (`SectionSpec.region`, the `wrapped` class):
 *
 * - `sibling`: the section (a wrapped acquire) runs as one job of a concurrent `Effect.all` in its `Lock.scoped`
 *   region; the other job, `afterMs` after the region starts, takes the same name with `withLock` (waiting `waitMs`)
 *   and runs `steps` steps of `stepMs`: a use of its own, never inside the section's lease.
 * - `forkedBefore`: the region's fiber forks that other use before the section's wrapped acquire, and waits for it
 *   before the region ends.
 * - `detached`: the section runs in a worker forked detached from an outer `Lock.scoped` region, in the way its api
 *   says (a wrapped acquire in a `Lock.scoped` of the worker's own); the outer region's code ends at once
 *   (`outerEnds`) or after `outerMs`, and its fiber then runs on for `outerMs`, which no lease may interrupt.
 *
 * @since 1.0.0
 * @category models
 */
export type RegionSpec =
  | {
    readonly kind: "sibling" | "forkedBefore"
    readonly afterMs: number
    readonly waitMs: number
    readonly steps: number
    readonly stepMs: number
  }
  | { readonly kind: "detached"; readonly outerEnds: boolean; readonly outerMs: number }

/**
 * A hand-off in the middle of a section: after `afterSteps` of its steps the section hands its lease off
 * (`Lock.handOff`), and `delayMs` later process `to` resumes it (`Lock.withResumed`) and runs the remaining steps on
 * it, writing with the same fence: one critical section across two processes.
 *
 * @since 1.0.0
 * @category models
 */
export interface HandOffSpec {
  readonly afterSteps: number
  readonly to: string
  readonly delayMs: number
}

/**
 * A section's use of a semaphore instead of a lock: `permits` of the semaphore of the section's name, whose limit is
 * `limit` (the same for every section of the name).
 *
 * @since 1.0.0
 * @category models
 */
export interface PermitSpec {
  readonly limit: number
  readonly permits: number
}

/**
 * Data updates in a section: after each of its writes but the last, `lease.updateData` inside an `Effect.timeout` of
 * `timeoutMs`. An update that times out or fails with `LockStoreError` is skipped (it may still be applied later); one
 * that finds the lease lost ends the section with `LockLost`.
 *
 * @since 1.0.0
 * @category models
 */
export interface DataUpdateSpec {
  readonly timeoutMs: number
}

/**
 * An invalid option a section passes on top of the schedule's timings. The lock must refuse each of them with
 * `LockConfigError` before any store call.
 *
 * @since 1.0.0
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
 * One planned use of a lock: at true time `at` the process tries to take `name` and, once it holds it, runs `steps`
 * steps of `stepMs`, each ending in a write to the fenced resource (the first write is at the start).
 *
 * @since 1.0.0
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
  readonly handOff?: HandOffSpec | undefined
  /**
   * Takes permits of the semaphore `name` instead of its lock: `Semaphore.withPermits` for the `withLock` api, a
   * scoped `Semaphore.acquire` otherwise. No child, no hand-off.
   */
  readonly semaphore?: PermitSpec | undefined
  /** Lock sections only. */
  readonly updates?: DataUpdateSpec | undefined
  /** Where the section's region stands among other code; `sibling` and `forkedBefore` for a wrapped api only. */
  readonly region?: RegionSpec | undefined
  /**
   * More locks taken together with `name` in one `Lock.withLocks`, in the order the section names them (the `withLock`
   * api only; no child, hand-off, region or semaphore).
   */
  readonly together?: ReadonlyArray<string> | undefined
  /**
   * With `together`: `Lock.withLocks` with `transaction`, which first tries to take every lock in one store call
   * (`LockStore.tryAcquireAll`) and takes them one at a time when that can not be done.
   */
  readonly transaction?: boolean | undefined
  /**
   * Takes the read/write lock `name` in this mode instead of its lock: `ReadWriteLock.withReadLock` or
   * `withWriteLock` for the `withLock` api, a scoped `acquireRead` or `acquireWrite` for `acquire`. No child,
   * hand-off, region, semaphore or locks taken together.
   */
  readonly readWrite?: ReadWriteMode.Mode | undefined
}

/**
 * An operator's `forceRelease` of `name` at true time `at`, straight on the store.
 *
 * @since 1.0.0
 * @category models
 */
export interface Steal {
  readonly at: number
  readonly name: string
}

/**
 * Lock options every process uses, in ms.
 *
 * @since 1.0.0
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
 * The timings the generated schedules use: short, so a schedule is a few simulated seconds.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultTimings: LockTimings = {
  leaseMs: 2_000,
  heartbeatMs: 600,
  safetyMarginMs: 400,
  maxClockSkewMs: 1_000,
  pollIntervalMs: 200
}

/**
 * A complete, replayable description of one run.
 *
 * @since 1.0.0
 * @category models
 */
export interface Schedule {
  readonly seed: number
  readonly mode: Mode
  readonly takeover: "absolute" | "observed"
  readonly timings: LockTimings
  readonly processes: ReadonlyArray<ProcessSpec>
  readonly sections: ReadonlyArray<SectionSpec>
  readonly faults: ReadonlyArray<Fault.ScheduledFault>
  readonly steals?: ReadonlyArray<Steal> | undefined
  /**
   * Whether every process holds its locks under a lease session of its own, with the schedule's timings, opened at
   * the start and opened again whenever it is lost.
   */
  readonly sessions?: boolean | undefined
  /** When planned work stops and every remaining fiber is interrupted, in true ms. */
  readonly horizonMs: number
}
