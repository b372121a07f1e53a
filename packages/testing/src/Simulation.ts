/**
 * Seeded simulations of several processes sharing one lock store: each process has its own wall clock offset (which
 * may jump or freeze while its monotonic clock runs on), its own pauses (GC-pause style: its timers fire late and its
 * store calls and section steps wait), and its own injected store faults; an operator may force-release names. A run
 * records every critical section and reservation on the true timeline, and every write to a fenced resource.
 *
 * A run is a discrete-event simulation: fibers run on a synchronous scheduler and time jumps from one timer to the
 * next, so a schedule replays exactly from its description and no real time passes while it runs.
 *
 * @since 1.0.0
 */
import * as BadOptionText from "@leasehold/core/simulation/BadOption"
import * as Resource from "@leasehold/core/simulation/FencedResource"
import * as Generate from "@leasehold/core/simulation/Generate"
import type * as Histories from "@leasehold/core/simulation/History"
import type * as LateDelivery from "@leasehold/core/simulation/LateDelivery"
import * as Schedules from "@leasehold/core/simulation/Schedule"
import type * as SectionRecords from "@leasehold/core/simulation/SectionRecord"
import type * as WriteRecords from "@leasehold/core/simulation/WriteRecord"
import type { Lock, LockStore } from "@leasehold/lock"
import type * as Effect from "effect/Effect"
import * as BadOptions from "./internal/simulation/badOptions.js"
import * as ClockOffset from "./internal/simulation/clockOffset.js"
import * as Run from "./internal/simulation/run.js"

/**
 * What a schedule tests (its class). Apart from what each class adds, skew stays within `maxClockSkew` and pauses
 * shorter than `safetyMargin`.
 *
 * - `safe`: nothing beyond that, so every invariant must hold.
 * - `skew`: one process's clock is off by more than `maxClockSkew`.
 * - `longPause`: one process pauses for longer than the lease.
 * - `wrapped`: some sections acquire inside `Effect.timeout`, `Effect.race`, `Effect.all` or a layer built in the
 *   section's scope, so the fiber that ran the acquire ends before the section does.
 * - `reentry`: some sections fork a child (`Effect.fork` under `acquire`, `Effect.forkDaemon` under `withLock`;
 *   `Effect.forkChild` and `Effect.forkDetach` on Effect 4) that later takes the same name, possibly nested, and may
 *   outlive the section.
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
 *   `FaultyStore.FaultKind`), on locks and semaphores; some sections update their data under `Effect.timeout`
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
export type Mode = Schedules.Mode

/**
 * Every class, in the order summaries print them.
 *
 * @since 1.0.0
 * @category constants
 */
export const modes: ReadonlyArray<Mode> = Schedules.modes

/**
 * A step of a process's wall clock at true time `at`: `jump` moves it by `ms` at once (negative: back); `freeze`
 * makes it stand still for `ms`, after which it runs on from where it stopped (so it stays `ms` behind). The
 * process's monotonic clock is not affected.
 *
 * @since 1.0.0
 * @category models
 */
export type ClockStep = Schedules.ClockStep

/**
 * @since 1.0.0
 * @category models
 */
export type Pause = Schedules.Pause

/**
 * @since 1.0.0
 * @category models
 */
export type ProcessSpec = Schedules.ProcessSpec

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
export type Api = Schedules.Api

/**
 * The acquire variants whose acquiring fiber ends before the section.
 *
 * @since 1.0.0
 * @category constants
 */
export const wrappedApis: ReadonlyArray<Api> = Schedules.wrappedApis

/**
 * A child a section forks as soon as it holds its lock (with `Effect.fork`, `Effect.forkChild` on Effect 4, under
 * `acquire`, after which the section's fiber joins it once its lock is released; with `Effect.forkDaemon`,
 * `Effect.forkDetach` on Effect 4, under `withLock`). `afterMs` later the child runs `withLock` on the same name (twice
 * nested if `nested`), then a scoped `acquire` of it for the lease, and `steps` steps of `stepMs` that write to the
 * fenced resource with that lease's fence.
 *
 * @since 1.0.0
 * @category models
 */
export type ChildSpec = Schedules.ChildSpec

/**
 * A hand-off in the middle of a section: after `afterSteps` of its steps the section hands its lease off
 * (`Lock.handOff`), and `delayMs` later process `to` resumes it (`Lock.withResumed`) and runs the remaining steps on
 * it, writing with the same fence: one critical section across two processes.
 *
 * @since 1.0.0
 * @category models
 */
export type HandOffSpec = Schedules.HandOffSpec

/**
 * Where a section's region stands among other code: a sibling job of a concurrent `Effect.all` or a fiber forked
 * before the acquire that take the same name as uses of their own, or a worker forked detached from an outer
 * `Lock.scoped` region, which ends at once or later while its fiber runs on (see the core's `Schedule.RegionSpec`).
 *
 * @since 1.0.0
 * @category models
 */
export type RegionSpec = Schedules.RegionSpec

/**
 * A section's use of a semaphore instead of a lock: `permits` of the semaphore of the section's name, whose limit is
 * `limit` (the same for every section of the name).
 *
 * @since 1.0.0
 * @category models
 */
export type PermitSpec = Schedules.PermitSpec

/**
 * Data updates in a section: after each of its writes but the last, `lease.updateData` inside an `Effect.timeout` of
 * `timeoutMs`. An update that times out or fails with `LockStoreError` is skipped (it may still be applied later); one
 * that finds the lease lost ends the section with `LockLost`.
 *
 * @since 1.0.0
 * @category models
 */
export type DataUpdateSpec = Schedules.DataUpdateSpec

/**
 * An invalid option a section passes on top of the schedule's timings. The core must refuse each of them with
 * `LockConfigError` before any store call.
 *
 * @since 1.0.0
 * @category models
 */
export type BadOption = Schedules.BadOption

/**
 * Every kind of invalid option, for generators.
 *
 * @since 1.0.0
 * @category constants
 */
export const badOptions: ReadonlyArray<BadOption> = BadOptionText.badOptions

/**
 * The options a bad-option kind stands for, and how to show them.
 *
 * @since 1.0.0
 * @category models
 */
export const badOptionValue: (
  bad: BadOption,
  timings: LockTimings
) => { readonly options: Lock.LockOptions; readonly show: string } = BadOptions.badOptionValue

/**
 * One planned use of a lock: at true time `at` the process tries to take `name` and, once it holds it, runs `steps`
 * steps of `stepMs`, each ending in a write to the fenced resource (the first write is at the start).
 *
 * @since 1.0.0
 * @category models
 */
export type SectionSpec = Schedules.SectionSpec

/**
 * An operator's `forceRelease` of `name` at true time `at`, straight on the store.
 *
 * @since 1.0.0
 * @category models
 */
export type Steal = Schedules.Steal

/**
 * Lock options every process uses, in ms.
 *
 * @since 1.0.0
 * @category models
 */
export type LockTimings = Schedules.LockTimings

/**
 * A complete, replayable description of one run.
 *
 * @since 1.0.0
 * @category models
 */
export type Schedule = Schedules.Schedule

/**
 * How a planned section ended.
 *
 * @since 1.0.0
 * @category models
 */
export type Outcome = SectionRecords.Outcome

/**
 * One planned section (or a child one forked): whether it got the lock, and if so when its critical section ran on
 * the true timeline. A child has index `sections.length + its parent's index`.
 *
 * @since 1.0.0
 * @category models
 */
export type SectionRecord = SectionRecords.SectionRecord

/**
 * One write a section made: to the fenced resource, or, under permits of a semaphore, to no fenced resource (holders
 * of a semaphore write side by side, so fences do not order their writes).
 *
 * @since 1.0.0
 * @category models
 */
export type WriteRecord = WriteRecords.WriteRecord

/**
 * @since 1.0.0
 * @category models
 */
export type FaultRecord = Histories.FaultRecord

/**
 * An operator's force release as it happened: `fence` and `holder` of the lease it cleared, if one was held.
 *
 * @since 1.0.0
 * @category models
 */
export type StealRecord = Histories.StealRecord

/**
 * @since 1.0.0
 * @category models
 */
export type ReservationRecord = Histories.ReservationRecord

/**
 * What the process that sent a held write had written to the same lock or semaphore by the time it was delivered:
 * any other write (`laterWrite`), a give-back by owner alone (`giveBack`, a release without a fence), an acquire that
 * succeeded (`acquired`), a release with a fence that freed it (`released`).
 *
 * @since 1.0.0
 * @category models
 */
export type LateAfter = LateDelivery.LateAfter

/**
 * A write the network held after its sender gave up on it, as it was delivered: when it was sent and applied (true
 * ms), what the store answered, and what its sender had written to the same name meanwhile.
 *
 * @since 1.0.0
 * @category models
 */
export type DeliveryRecord = LateDelivery.DeliveryRecord

/**
 * Everything a run observed.
 *
 * @since 1.0.0
 * @category models
 */
export type History = Histories.History

/**
 * A downstream store that accepts a write only if its fence is at least the highest it has seen for the name: what
 * the README asks users to put behind their locks.
 *
 * @since 1.0.0
 * @category models
 */
export type FencedResource = Resource.FencedResource

/**
 * @since 1.0.0
 * @category constructors
 */
export const makeFencedResource: () => FencedResource = Resource.make

/**
 * Runs `self` with a wall clock `offsetMs` ahead of (negative: behind) the clock in context, e.g. `TestClock`, for a
 * process with a skewed clock in an `it.effect` test. Monotonic time (deadlines) and sleeps are left as they are.
 *
 * @since 1.0.0
 * @category clocks
 */
export const withClockOffset: (
  offsetMs: number
) => <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R> = ClockOffset.withClockOffset

/**
 * The timings the generated schedules use: short, so a schedule is a few simulated seconds.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultTimings: LockTimings = Schedules.defaultTimings

/**
 * A random schedule from a seed. The same seed always gives the same schedule. `mode` defaults to a seeded choice:
 * some of every class.
 *
 * @since 1.0.0
 * @category constructors
 */
export const generate: (seed: number, options?: { readonly mode?: Mode | undefined }) => Schedule = Generate.generate

/**
 * Runs a schedule to the end and returns what happened. Synchronous and deterministic: no real time passes. The
 * processes share `options.store` if given (a store under test, which must read time through `Clock`), else a new
 * memory store.
 *
 * @since 1.0.0
 * @category running
 */
export const run: (
  schedule: Schedule,
  options?: { readonly store?: LockStore.LockStore | undefined }
) => History = Run.run
