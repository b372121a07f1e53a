/**
 * The invariants the checker holds simulated histories to, what breaking one looks like, and which of them a
 * schedule's class promises.
 *
 * @since 1.0.0
 */
import type * as Schedule from "../simulation/Schedule.js"

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
 * - `bystandersRun`: a fiber that relies on no lease is never interrupted by one: the outer region's fiber around a
 *   detached worker runs its own code to its end (or to the horizon), whatever the worker's lease does.
 * - `regionsFailWithLoss`: a use run in a `Lock.scoped` region whose lease was lost while it ran ends with `LockLost`,
 *   not interrupted. A sibling job of a concurrent `Effect.all` is left out: on Effect 3 that job holds the lease it
 *   waited for, and its interruption reaches the region through the `Effect.all`.
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
export type Invariant =
  | "mutualExclusion"
  | "fenceOrder"
  | "interruptBeforeTakeover"
  | "fencedResource"
  | "noDefects"
  | "stopsWhenLost"
  | "reentryProgress"
  | "bystandersRun"
  | "regionsFailWithLoss"
  | "badOptionsRefused"
  | "reservationBound"
  | "permitLimit"
  | "permitFences"
  | "allOrNone"
  | "noDeadlock"
  | "readWriteExclusion"
  | "readWriteFences"

/**
 * Every invariant, in the order reports list them.
 *
 * @since 1.0.0
 * @category constants
 */
export const invariants: ReadonlyArray<Invariant> = [
  "mutualExclusion",
  "fenceOrder",
  "interruptBeforeTakeover",
  "fencedResource",
  "noDefects",
  "stopsWhenLost",
  "reentryProgress",
  "bystandersRun",
  "regionsFailWithLoss",
  "badOptionsRefused",
  "reservationBound",
  "permitLimit",
  "permitFences",
  "allOrNone",
  "noDeadlock",
  "readWriteExclusion",
  "readWriteFences"
]

/**
 * One way a history broke an invariant, in words.
 *
 * @since 1.0.0
 * @category models
 */
export interface Finding {
  readonly invariant: Invariant
  readonly message: string
}

/** Hold in every class: they rely on no assumption about clocks, pauses or operators. */
const unconditional: ReadonlyArray<Invariant> = [
  "fencedResource",
  "noDefects",
  "stopsWhenLost",
  "reentryProgress",
  "bystandersRun",
  "regionsFailWithLoss",
  "badOptionsRefused",
  "permitFences",
  "allOrNone",
  "noDeadlock"
]

/**
 * Which invariants must hold for a schedule. Mutual exclusion, fence order and interruption before takeover rely on
 * the README's assumptions: in absolute mode on wall clocks within the skew bound (so not with `skew` or
 * `clockStep`), in both modes on pauses shorter than the safety margin (a holder paused past its lease resumes and
 * starts its section late, with an old fence). Observed takeover reads no wall clock, so skew and clock steps promise
 * everything there. A force release (`steal`) lets the old holder run on until its next renew, which fencing covers:
 * fences still increase, sections may overlap. Wrapped acquires, forked children and bad options are no excuse:
 * those classes promise everything. `permitLimit` and `readWriteExclusion` rely on what mutual exclusion does, and
 * `readWriteFences` on what fence order does (but no force release clears permits); `semaphore`, `session` and
 * `readWrite` promise everything. The other invariants hold always.
 *
 * @since 1.0.0
 * @category checking
 */
export const expected = (schedule: Schedule.Schedule): ReadonlyArray<Invariant> => {
  switch (schedule.mode) {
    case "safe":
    case "wrapped":
    case "reentry":
    case "badOptions":
    case "handOff":
    case "semaphore":
    case "late":
    case "contended":
    case "session":
    case "multi":
    case "readWrite":
      return invariants
    case "skew":
    case "clockStep":
      return schedule.takeover === "observed" ? invariants : unconditional
    case "longPause":
      return unconditional
    case "steal":
      // A force release clears a lock, never a semaphore's permits.
      return [
        ...unconditional,
        "fenceOrder",
        "reservationBound",
        "permitLimit",
        "readWriteExclusion",
        "readWriteFences"
      ]
  }
}
