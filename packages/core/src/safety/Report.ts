/**
 * A checked history: every invariant over what a run recorded, split into what the schedule's class promised
 * (violations) and what it did not (anomalies).
 *
 * @since 1.0.0
 */
import type * as History from "../simulation/History.js"
import type * as Schedule from "../simulation/Schedule.js"
import { isPermitSection } from "./CriticalSection.js"
import * as Invariant from "./Invariant.js"
import { fencedWrites, orderAndExclusion, reservationBound } from "./LockInvariants.js"
import { allOrNone, noDeadlock } from "./MultiLockInvariants.js"
import { permitFences, permitLimit } from "./PermitInvariants.js"
import { readWriteExclusion, readWriteFences } from "./ReadWriteInvariants.js"
import {
  badOptionsRefused,
  bystandersRun,
  noDefects,
  reentryProgress,
  regionsFailWithLoss,
  stopsWhenLost
} from "./UseInvariants.js"

/**
 * A checked history. `violations` break invariants the schedule's assumptions promise; `anomalies` break invariants
 * that the schedule's mode is expected to break (overlaps with skew beyond the bound or pauses beyond the lease).
 *
 * @since 1.0.0
 * @category models
 */
export interface Report {
  readonly history: History.History
  readonly expected: ReadonlyArray<Invariant.Invariant>
  readonly violations: ReadonlyArray<Invariant.Finding>
  readonly anomalies: ReadonlyArray<Invariant.Finding>
  /** Acquired sections checked. */
  readonly sections: number
  /** Writes the fenced resource rejected as stale. */
  readonly staleWritesRejected: number
}

/**
 * Checks every invariant over a history.
 *
 * @since 1.0.0
 * @category checking
 */
export const check = (history: History.History): Report => {
  // A child on a borrowed lease is part of its parent's critical section, not one of its own.
  const acquired = history.sections.filter((s) => s.start !== undefined && s.borrowedFrom === undefined)
  // A lock and a semaphore of one name are two things: each has its own invariants.
  const permitHolders = acquired.filter(isPermitSection)
  const findings = [
    ...orderAndExclusion(history, acquired.filter((s) => !isPermitSection(s))),
    ...permitLimit(history, permitHolders),
    ...permitFences(permitHolders),
    ...fencedWrites(history),
    ...noDefects(history),
    ...stopsWhenLost(history),
    ...reentryProgress(history),
    ...bystandersRun(history),
    ...regionsFailWithLoss(history),
    ...badOptionsRefused(history),
    ...reservationBound(history),
    ...allOrNone(history),
    ...noDeadlock(history),
    ...readWriteExclusion(history, permitHolders),
    ...readWriteFences(permitHolders)
  ]
  const expected = Invariant.expected(history.schedule)
  return {
    history,
    expected,
    violations: findings.filter((f) => expected.includes(f.invariant)),
    anomalies: findings.filter((f) => !expected.includes(f.invariant)),
    sections: acquired.length,
    staleWritesRejected: history.writes.filter((w) => !w.accepted).length
  }
}

/**
 * Runs `schedule` with `run` and checks what it recorded.
 *
 * @since 1.0.0
 * @category checking
 */
export const checkSchedule = (schedule: Schedule.Schedule, run: History.Run): Report => check(run(schedule))
