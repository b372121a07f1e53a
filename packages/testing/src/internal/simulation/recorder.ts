/**
 * What a simulation records: every planned use of a lock or a semaphore (when its critical section ran on the true
 * timeline and how it ended), every write to the fenced resource, every injected fault and every operator's force
 * release.
 *
 * @internal
 */
import type * as PermitGrant from "@leasehold/core/simulation/PermitGrant"
import * as SectionRecord from "@leasehold/core/simulation/SectionRecord"
import * as WriteRecord from "@leasehold/core/simulation/WriteRecord"
import type { Lease, LockError } from "@leasehold/lock"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import type * as Simulation from "../../Simulation.js"
import { type LateLog, makeLateLog } from "./lateDelivery.js"
import type { Timeline } from "./timeline.js"

/** @internal */
export interface Recorder {
  readonly sections: Array<Simulation.SectionRecord>
  readonly writes: Array<Simulation.WriteRecord>
  readonly faults: Array<Simulation.FaultRecord>
  readonly steals: Array<Simulation.StealRecord>
  readonly reservations: Array<Simulation.ReservationRecord>
  /** What the store granted each semaphore holder, by holder name. */
  readonly permitGrants: Map<string, PermitGrant.PermitGrant>
  /** Every write the processes applied, and the held ones as they were delivered. */
  readonly late: LateLog
  /** A new record of a use, not yet started. */
  readonly newSection: (
    index: number,
    process: string,
    name: string,
    api: Simulation.SectionRecord["api"]
  ) => Simulation.SectionRecord
  /**
   * A write at the start, then `count` steps of `stepMs` each ending in a write. Under `permits` of a semaphore, the
   * writes go to no fenced resource. `between(k)` runs after write `k` but the last, before the step's wait.
   */
  readonly steps: <E = never>(
    name: string,
    fence: number,
    section: number,
    by: number,
    count: number,
    stepMs: number,
    permits?: number,
    between?: (k: number) => Effect.Effect<void, E>
  ) => Effect.Effect<void, E>
  /** Notes that the use was called now. */
  readonly requested: (record: Simulation.SectionRecord) => Effect.Effect<void>
  /** Notes when the critical section ended and in what state its lease was. */
  readonly endWith: (record: Simulation.SectionRecord, lease: Held) => Effect.Effect<void>
  /** Notes, from a daemon (the section may never look), when `lease` is lost; the fiber joins `daemons`. */
  readonly watchLoss: (
    record: Simulation.SectionRecord,
    lease: Held,
    daemons: Array<Fiber.RuntimeFiber<void>>
  ) => Effect.Effect<void>
  /** Notes how a use ended. */
  readonly outcomeOf: (record: Simulation.SectionRecord) => (exit: Exit.Exit<unknown, unknown>) => Effect.Effect<void>
}

/** What the recorder reads of a held lock's lease or of held permits. @internal */
export interface Held {
  readonly status: Effect.Effect<Lease.LeaseStatus>
  readonly lost: Effect.Effect<never, LockError.LockLost>
}

const recordExit = (record: Simulation.SectionRecord, exit: Exit.Exit<unknown, unknown>): void => {
  if (Exit.isSuccess(exit)) {
    record.outcome = "completed"
    return
  }
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure)) {
    SectionRecord.failWith(record, failure.value as SectionRecord.ErrorFields)
  } else if (Cause.isDie(exit.cause)) {
    record.outcome = "defect"
    record.detail = Cause.pretty(exit.cause)
  } else {
    record.outcome = "interrupted"
  }
}

/**
 * A recorder on `timeline`'s true time, with a fresh fenced resource.
 *
 * @internal
 */
export const makeRecorder = (timeline: Timeline): Recorder => {
  const log = WriteRecord.makeLog()
  const sections: Array<Simulation.SectionRecord> = []

  const write = (name: string, fence: number, section: number, by: number, permits: number | undefined) =>
    Effect.sync(() => log.write(timeline.now, name, fence, section, by, permits))

  return {
    sections,
    writes: log.writes,
    faults: [],
    steals: [],
    reservations: [],
    permitGrants: new Map(),
    late: makeLateLog(timeline),
    newSection: (index, process, name, api) => {
      const record = SectionRecord.make(index, process, name, api)
      sections.push(record)
      return record
    },
    steps: (name, fence, section, by, count, stepMs, permits, between) =>
      Effect.gen(function*() {
        yield* write(name, fence, section, by, permits)
        for (let k = 0; k < count; k++) {
          if (between !== undefined) yield* between(k)
          yield* Effect.sleep(stepMs)
          yield* write(name, fence, section, by, permits)
        }
      }),
    requested: (record) =>
      Effect.sync(() => {
        record.requestedAt = timeline.now
      }),
    endWith: (record, lease) =>
      Effect.flatMap(lease.status, (status) =>
        Effect.sync(() => {
          record.end = timeline.now
          record.leaseStatus = SectionRecord.describeStatus(status)
        })),
    watchLoss: (record, lease, daemons) =>
      Effect.flatMap(
        Effect.forkDaemon(Effect.catchAll(lease.lost, () =>
          Effect.sync(() => {
            record.lostAt ??= timeline.now
          }))),
        (fiber) =>
          Effect.sync(() => {
            daemons.push(fiber)
          })
      ),
    outcomeOf: (record) => (exit) =>
      Effect.sync(() => {
        record.finishedAt = timeline.now
        recordExit(record, exit)
      })
  }
}
