/**
 * A Jepsen-style checker for lock histories: one set of invariants over what a `Simulation` run recorded, seeded
 * batches of random schedules, and a shrinker that reduces a failing schedule to a small one that still fails.
 *
 * ```ts
 * import { SafetyChecker } from "@leasehold/testing"
 * import { expect } from "vitest"
 *
 * const summary = SafetyChecker.runMany({ from: 1, count: 200 })
 * expect(summary.failures).toEqual([])
 * ```
 *
 * @since 1.0.0
 */
import * as Batch from "@leasehold/core/safety/Batch"
import * as FormatHistory from "@leasehold/core/safety/FormatHistory"
import * as Invariants from "@leasehold/core/safety/Invariant"
import * as Reports from "@leasehold/core/safety/Report"
import * as Shrink from "@leasehold/core/safety/Shrink"
import type * as Tally from "@leasehold/core/safety/Tally"
import * as Simulation from "./Simulation.js"

/** Each schedule runs on this line's simulation, with a fresh memory store. */
const run = (schedule: Simulation.Schedule): Simulation.History => Simulation.run(schedule)

/**
 * The invariants.
 *
 * - `mutualExclusion`: no two critical sections of one name overlap on the true timeline, and the fenced resource
 *   rejects no write (no stale holder wrote after a newer one started).
 * - `fenceOrder`: per name, fences strictly increase in the order sections start.
 * - `interruptBeforeTakeover`: a section whose lease was lost ended no later than the next holder of the name
 *   started, whatever its store calls were doing.
 * - `fencedResource`: the resource accepted no write with a fence lower than one it had accepted.
 * - `noDefects`: every section ended with a value, a typed lock error or an interruption: no defect, nothing left
 *   running once the simulation drained.
 * - `stopsWhenLost`: once a section's lease is Lost, the section (and any child writing on its lease) makes no write
 *   after the one that ends the step in progress.
 * - `reentryProgress`: a use nested in a use of the same name on the same fiber runs at once: it never waits for,
 *   or fails with, a lease of its own fiber, nor with a lease that had ended before it was called. A use that
 *   borrowed its parent's lease may instead be cut off when the parent releases it (`LockLost`, reason "released").
 * - `badOptionsRefused`: a use with an invalid option fails with `LockConfigError` and runs nothing; a use with valid
 *   options is never refused.
 * - `reservationBound`: a reservation keeps a free lock from others no longer than its length plus `maxClockSkew`
 *   on the true timeline: every acquire a reservation refused came at most that long after the reservation was made.
 * - `permitLimit`: at no instant do the critical sections running on a semaphore's permits (from start to end or
 *   last write, as for `mutualExclusion`) hold more permits in total than its limit.
 * - `permitFences`: per semaphore, every acquisition has a fence of its own, and one called after another had
 *   acquired has a greater fence.
 * - `allOrNone`: a use that takes several locks together (`Lock.withLocks`) runs its section holding all of them, or
 *   does not run it.
 * - `noDeadlock`: no uses that take locks together wait on each other in a cycle, each holding a lock the next waits
 *   for.
 * - `readWriteExclusion`: per read/write lock, no writer's critical section overlaps another's of the name, a
 *   writer's or a reader's (from start to end or last write, as for `mutualExclusion`), and the resource behind the
 *   lock refuses no write or read.
 * - `readWriteFences`: per read/write lock, a writer's fence is above that of every section of the name that started
 *   before it, and a reader's above that of every writer that started before it.
 *
 * The lock's invariants (`mutualExclusion`, `fenceOrder`, `interruptBeforeTakeover`, `fencedResource`) are about
 * sections under a lock; those under a semaphore's permits have the two of their own, and a lock and a semaphore of
 * one name are apart. A read/write lock is the semaphore of its name: its sections are held to the semaphore's
 * invariants and to the two of their own.
 *
 * @since 1.0.0
 * @category models
 */
export type Invariant = Invariants.Invariant

/**
 * @since 1.0.0
 * @category constants
 */
export const invariants: ReadonlyArray<Invariant> = Invariants.invariants

/**
 * @since 1.0.0
 * @category models
 */
export type Finding = Invariants.Finding

/**
 * A checked history. `violations` break invariants the schedule's assumptions promise; `anomalies` break invariants
 * that the schedule's mode is expected to break (overlaps with skew beyond the bound or pauses beyond the lease).
 *
 * @since 1.0.0
 * @category models
 */
export type Report = Reports.Report

/**
 * Which invariants must hold for a schedule. Mutual exclusion, fence order and interruption before takeover rely on
 * the README's assumptions: in absolute mode on wall clocks within the skew bound (so not with `skew` or
 * `clockStep`), in both modes on pauses shorter than the safety margin (a holder paused past its lease resumes and
 * starts its section late, with an old fence). Observed takeover reads no wall clock, so skew and clock steps promise
 * everything there. A force release (`steal`) lets the old holder run on until its next renew, which fencing covers:
 * fences still increase, sections may overlap. Wrapped acquires, forked children and bad options are no excuse:
 * those classes promise everything. `permitLimit` relies on what mutual exclusion does (but no force release clears
 * permits); `semaphore` promises everything. The other invariants hold always.
 *
 * @since 1.0.0
 * @category checking
 */
export const expectedInvariants: (schedule: Simulation.Schedule) => ReadonlyArray<Invariant> = Invariants.expected

/**
 * Checks every invariant over a history.
 *
 * @since 1.0.0
 * @category checking
 */
export const check: (history: Simulation.History) => Report = Reports.check

/**
 * Runs and checks one schedule.
 *
 * @since 1.0.0
 * @category checking
 */
export const checkSchedule = (schedule: Simulation.Schedule): Report => Reports.checkSchedule(schedule, run)

/**
 * Reduces a schedule that fails `stillFails` to a smaller one that still does: drops sections, faults, force
 * releases, hand-offs, data updates, children, pauses, clock steps, clock offsets and idle processes one at a time,
 * then shortens sections and children and takes one permit where a section took more, until nothing more can go.
 *
 * @since 1.0.0
 * @category checking
 */
export const shrink: (
  schedule: Simulation.Schedule,
  stillFails: (schedule: Simulation.Schedule) => boolean,
  maxRuns?: number
) => Simulation.Schedule = Shrink.shrink

/**
 * Whether a report still shows a violation of the same invariant: the shrinker's test.
 *
 * @since 1.0.0
 * @category checking
 */
export const failsLike = (report: Report): (schedule: Simulation.Schedule) => boolean => Batch.failsLike(report, run)

/**
 * @since 1.0.0
 * @category models
 */
export type FailedSeed = Batch.FailedSeed

/**
 * Held writes delivered after their senders gave up, on locks or on semaphores, and how many of them landed after
 * their sender had written to the same name again: any write, a give-back by owner alone, an acquire that
 * succeeded, a release with a fence (see `Simulation.LateAfter`).
 *
 * @since 1.0.0
 * @category models
 */
export type LateTally = Tally.LateTally

/**
 * What a batch saw of one class of schedules.
 *
 * @since 1.0.0
 * @category models
 */
export type ClassSummary = Tally.ClassSummary

/**
 * What a batch saw.
 *
 * @since 1.0.0
 * @category models
 */
export type Summary = Batch.Summary

/**
 * Runs seeds `from` .. `from + count - 1`, checks each, shrinks failures (the first `maxShrinks` of them: shrinking
 * costs up to a few hundred runs each; the others keep their own report as `shrunk`).
 *
 * @since 1.0.0
 * @category checking
 */
export const runMany: (options: Batch.Options) => Summary = (options) => Batch.runMany(options, run)

/**
 * A readable history: the schedule, then every event in true-time order.
 *
 * @since 1.0.0
 * @category formatting
 */
export const formatHistory: (history: Simulation.History) => string = FormatHistory.formatHistory
