/**
 * What a batch tallies per class of schedules: how much each class exercised (sections, writes, faults, pauses, force
 * releases, children, bad options, permits, read/write locks, late deliveries) and what it broke.
 *
 * @since 1.0.0
 */
import * as History from "../simulation/History.js"
import type * as LateDelivery from "../simulation/LateDelivery.js"
import type * as Invariant from "./Invariant.js"
import type * as Report from "./Report.js"

/**
 * Held writes delivered after their senders gave up, on locks or on semaphores, and how many of them landed after
 * their sender had written to the same name again: any write, a give-back by owner alone, an acquire that
 * succeeded, a release with a fence (see `LateDelivery.LateAfter`).
 *
 * @since 1.0.0
 * @category models
 */
export interface LateTally {
  readonly delivered: number
  readonly afterLaterWrite: number
  readonly afterGiveBack: number
  readonly afterAcquired: number
  readonly afterRelease: number
}

/**
 * Planned uses of read/write locks, by mode, and how many of them ran their section; the reservations the store made
 * for their waiters, and the acquisitions that removed holders whose leases were over.
 *
 * @since 1.0.0
 * @category models
 */
export interface ReadWriteSummary {
  readonly reads: number
  readonly readsRan: number
  readonly writes: number
  readonly writesRan: number
  readonly reservations: number
  readonly takeovers: number
}

/**
 * What a batch saw of one class of schedules.
 *
 * @since 1.0.0
 * @category models
 */
export interface ClassSummary {
  readonly schedules: number
  /** Acquired sections checked (children on their own lease included). */
  readonly sections: number
  readonly writes: number
  readonly faults: number
  readonly pauses: number
  /** Force releases that cleared a holder, of those planned. */
  readonly steals: number
  readonly stealsPlanned: number
  readonly clockSteps: number
  /** Children forked, and how many of them ran on their parent's lease. */
  readonly children: number
  readonly childrenBorrowing: number
  readonly badOptions: number
  /**
   * Acquired sections under a semaphore's permits, and how many of them removed holders whose leases were over; those
   * under a read/write lock are its own (`readWrite`).
   */
  readonly permitSections: number
  readonly permitTakeovers: number
  /** Planned uses that take several locks together, and how many of them ran their section. */
  readonly together: number
  readonly togetherRan: number
  /**
   * Of those, the uses that asked for one store call first (`transaction`), and how many of them ran their section on
   * the locks that one call took, or on locks taken one at a time after it.
   */
  readonly transactions: number
  readonly transactionsAtOnce: number
  readonly transactionsOneAtATime: number
  /** Lease sessions opened and lost, sections held under one, and locks taken over from a session judged dead. */
  readonly sessions: History.SessionTally
  /** What the uses of read/write locks did. */
  readonly readWrite: ReadWriteSummary
  /** Held writes delivered late, on locks and on semaphores. */
  readonly lateOnLocks: LateTally
  readonly lateOnSemaphores: LateTally
  /** Schedules with violations of what the class promises, and per invariant. */
  readonly failed: number
  readonly violations: Partial<Record<Invariant.Invariant, number>>
  /** Schedules breaking each invariant the class does not promise. */
  readonly anomalies: Partial<Record<Invariant.Invariant, number>>
  /** The first few failing seeds. */
  readonly failingSeeds: ReadonlyArray<number>
}

type MutableLateTally = { -readonly [K in keyof LateTally]: number }

/**
 * A class's tally as a batch fills it in.
 *
 * @since 1.0.0
 * @category models
 */
export type MutableClassSummary =
  & {
    -readonly [K in Exclude<keyof ClassSummary, "lateOnLocks" | "lateOnSemaphores" | "readWrite">]: ClassSummary[K]
  }
  & {
    failingSeeds: Array<number>
    lateOnLocks: MutableLateTally
    lateOnSemaphores: MutableLateTally
    readWrite: { -readonly [K in keyof ReadWriteSummary]: number }
  }

/** Failing seeds a class keeps: enough to replay a few, few enough to print. */
const keptSeeds = 10

const emptyLate = (): MutableLateTally => ({
  delivered: 0,
  afterLaterWrite: 0,
  afterGiveBack: 0,
  afterAcquired: 0,
  afterRelease: 0
})

const tallyLate = (tally: MutableClassSummary, deliveries: ReadonlyArray<LateDelivery.DeliveryRecord>) => {
  for (const d of deliveries) {
    const late = d.semaphore ? tally.lateOnSemaphores : tally.lateOnLocks
    late.delivered++
    if (d.after.includes("laterWrite")) late.afterLaterWrite++
    if (d.after.includes("giveBack")) late.afterGiveBack++
    if (d.after.includes("acquired")) late.afterAcquired++
    if (d.after.includes("released")) late.afterRelease++
  }
}

/**
 * A class's tally before any schedule.
 *
 * @since 1.0.0
 * @category constructors
 */
export const emptyClass = (): MutableClassSummary => ({
  schedules: 0,
  sections: 0,
  writes: 0,
  faults: 0,
  pauses: 0,
  steals: 0,
  stealsPlanned: 0,
  clockSteps: 0,
  children: 0,
  childrenBorrowing: 0,
  badOptions: 0,
  permitSections: 0,
  permitTakeovers: 0,
  together: 0,
  togetherRan: 0,
  transactions: 0,
  transactionsAtOnce: 0,
  transactionsOneAtATime: 0,
  sessions: History.emptySessions(),
  readWrite: { reads: 0, readsRan: 0, writes: 0, writesRan: 0, reservations: 0, takeovers: 0 },
  lateOnLocks: emptyLate(),
  lateOnSemaphores: emptyLate(),
  failed: 0,
  violations: {},
  anomalies: {},
  failingSeeds: []
})

/**
 * Adds one checked schedule of the class to `tally`.
 *
 * @since 1.0.0
 * @category tallying
 */
export const tallyClass = (tally: MutableClassSummary, report: Report.Report): void => {
  const { history } = report
  const schedule = history.schedule
  tally.schedules++
  tally.sections += report.sections
  tally.writes += history.writes.length
  tally.faults += history.faults.length
  for (const p of schedule.processes) {
    tally.pauses += p.pauses.length
    tally.clockSteps += p.clockSteps?.length ?? 0
  }
  tally.stealsPlanned += schedule.steals?.length ?? 0
  tally.steals += history.steals?.filter((x) => x.fence !== undefined).length ?? 0
  for (const s of history.sections) {
    if (s.parent !== undefined) tally.children++
    if (s.borrowedFrom !== undefined) tally.childrenBorrowing++
    if (s.mode !== undefined) {
      if ((s.tookOver ?? 0) > 0) tally.readWrite.takeovers++
      continue
    }
    if (s.permits !== undefined && s.start !== undefined) tally.permitSections++
    if ((s.tookOver ?? 0) > 0) tally.permitTakeovers++
  }
  tally.badOptions += schedule.sections.filter((s) => s.badOption !== undefined).length
  for (const [index, spec] of schedule.sections.entries()) {
    if (spec.together === undefined) continue
    tally.together++
    const ran = history.sections.find((s) => s.index === index && s.start !== undefined)
    if (ran !== undefined) tally.togetherRan++
    if (spec.transaction !== true) continue
    tally.transactions++
    if (ran?.takenAtOnce === true) tally.transactionsAtOnce++
    if (ran?.takenAtOnce === false) tally.transactionsOneAtATime++
  }
  for (const [index, spec] of schedule.sections.entries()) {
    if (spec.readWrite === undefined) continue
    const ran = history.sections.some((s) => s.index === index && s.start !== undefined)
    if (spec.readWrite === "read") {
      tally.readWrite.reads++
      if (ran) tally.readWrite.readsRan++
    } else {
      tally.readWrite.writes++
      if (ran) tally.readWrite.writesRan++
    }
  }
  tally.readWrite.reservations += history.readWrite?.reservations ?? 0
  tallyLate(tally, history.deliveries ?? [])
  const sessions = history.sessions
  if (sessions !== undefined) {
    tally.sessions.opened += sessions.opened
    tally.sessions.lost += sessions.lost
    tally.sessions.sectionsUnder += sessions.sectionsUnder
    tally.sessions.orphanTakeovers += sessions.orphanTakeovers
    tally.sessions.permitSectionsUnder += sessions.permitSectionsUnder
    tally.sessions.permitOrphansRemoved += sessions.permitOrphansRemoved
  }
  for (const invariant of new Set(report.violations.map((v) => v.invariant))) {
    tally.violations[invariant] = (tally.violations[invariant] ?? 0) + 1
  }
  for (const invariant of new Set(report.anomalies.map((v) => v.invariant))) {
    tally.anomalies[invariant] = (tally.anomalies[invariant] ?? 0) + 1
  }
  if (report.violations.length > 0) {
    tally.failed++
    if (tally.failingSeeds.length < keptSeeds) tally.failingSeeds.push(schedule.seed)
  }
}
