/**
 * Everything a simulated run observed: the planned uses as they ran, the writes, the injected faults, the operator's
 * force releases, the reservations and the held writes delivered late. The checker's input.
 *
 * @since 1.0.0
 */
import type * as Fault from "./Fault.js"
import type * as LateDelivery from "./LateDelivery.js"
import type * as Schedule from "./Schedule.js"
import type * as SectionRecord from "./SectionRecord.js"
import type * as WriteRecord from "./WriteRecord.js"

/**
 * A fault injected into a call at true time `at`.
 *
 * @since 1.0.0
 * @category models
 */
export interface FaultRecord {
  readonly at: number
  readonly call: Fault.Call
  readonly fault: Fault.Fault
}

/**
 * An operator's force release as it happened: `fence` and `holder` of the lease it cleared, if one was held.
 *
 * @since 1.0.0
 * @category models
 */
export interface StealRecord {
  readonly at: number
  readonly name: string
  readonly fence: number | undefined
  readonly holder: string | undefined
}

/**
 * A reservation made, or an acquire of a free lock one refused. `at` is true time, when the store applied the call;
 * `reservedUntil` is on the reserver's clock.
 *
 * @since 1.0.0
 * @category models
 */
export interface ReservationRecord {
  /** `reserved`: `process` reserved the lock for `owner`; `refused`: `owner`'s reservation refused its acquire. */
  readonly kind: "reserved" | "refused"
  readonly at: number
  readonly process: string
  readonly name: string
  readonly owner: string
  readonly reservedUntil: number
  /** How long a reservation made lasts: it lapses `reserveMs` after `at` in true time. 0 for a refusal. */
  readonly reserveMs: number
}

/**
 * What the lease sessions of a run did (the `session` class): how many the processes opened and lost, how many
 * sections held their lock or their permits under one, and how many locks (and semaphore holders) a process took over
 * from (removed of) a session it judged dead.
 *
 * @since 1.0.0
 * @category models
 */
export interface SessionTally {
  opened: number
  lost: number
  sectionsUnder: number
  orphanTakeovers: number
  permitSectionsUnder: number
  permitOrphansRemoved: number
}

/**
 * A tally with nothing counted yet.
 *
 * @since 1.0.0
 * @category constructors
 */
export const emptySessions = (): SessionTally => ({
  opened: 0,
  lost: 0,
  sectionsUnder: 0,
  orphanTakeovers: 0,
  permitSectionsUnder: 0,
  permitOrphansRemoved: 0
})

/**
 * What the read/write locks of a run did beyond their sections (the `readWrite` class): how many reservations the
 * store made for their waiters, the one next taking the record (`reservePermits` answered `Reserved`, as applied,
 * late ones included).
 *
 * @since 1.0.0
 * @category models
 */
export interface ReadWriteTally {
  reservations: number
}

/**
 * A read/write tally with nothing counted yet.
 *
 * @since 1.0.0
 * @category constructors
 */
export const emptyReadWrite = (): ReadWriteTally => ({ reservations: 0 })

/**
 * Everything a run observed.
 *
 * @since 1.0.0
 * @category models
 */
export interface History {
  readonly schedule: Schedule.Schedule
  readonly sections: ReadonlyArray<SectionRecord.SectionRecord>
  readonly writes: ReadonlyArray<WriteRecord.WriteRecord>
  readonly faults: ReadonlyArray<FaultRecord>
  readonly steals?: ReadonlyArray<StealRecord> | undefined
  readonly reservations?: ReadonlyArray<ReservationRecord> | undefined
  /** Held writes delivered after their senders gave up, in the order the store applied them. */
  readonly deliveries?: ReadonlyArray<LateDelivery.DeliveryRecord> | undefined
  /** What the processes' lease sessions did, when the schedule has sessions. */
  readonly sessions?: SessionTally | undefined
  /**
   * For schedules with locks taken together: the holder (`SectionOptions.holderOf`) each of their locks had in the
   * store at the horizon, by name; `undefined` for a free one, or one whose lease was over by more than the skew bound
   * (whoever waits for it takes it over).
   */
  readonly holdersAtHorizon?: Readonly<Record<string, string | undefined>> | undefined
  /** For the same schedules: the lock each holder's last acquiring write was for, at the horizon, by holder. */
  readonly targetsAtHorizon?: Readonly<Record<string, string>> | undefined
  /** What the read/write locks did beyond their sections, when the schedule has sections under one. */
  readonly readWrite?: ReadWriteTally | undefined
  /** True time when the last fiber finished. */
  readonly endedAt: number
  /** Whether every fiber finished before the simulation's time cap. */
  readonly finished: boolean
}

/**
 * Runs a schedule to the end on some runtime: what each Effect line provides to the checker.
 *
 * @since 1.0.0
 * @category models
 */
export type Run = (schedule: Schedule.Schedule) => History
