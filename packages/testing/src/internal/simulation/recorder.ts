/**
 * What a simulation records: every planned use of a lock or a semaphore (when its critical section ran on the true
 * timeline and how it ended), every write to the fenced resource, every injected fault and every operator's force
 * release.
 *
 * @internal
 */
import type * as ReadWriteMode from "@leasehold/core/record/ReadWriteMode"
import {
  emptyReadWrite,
  emptySessions,
  type ReadWriteTally,
  type SessionTally
} from "@leasehold/core/simulation/History"
import * as Recording from "@leasehold/core/simulation/Recording"
import type * as SectionRecord from "@leasehold/core/simulation/SectionRecord"
import type { Lease, LockError } from "@leasehold/lock"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import type * as Simulation from "../../Simulation.js"
import * as EffectLine from "../effectLine.js"
import { type LateLog, makeLateLog } from "./lateDelivery.js"
import type { Timeline } from "./timeline.js"

/**
 * The core's records of a run (read by the run when it ends), and the notes the sections take from their fibers.
 *
 * @internal
 */
export interface Recorder extends
  Pick<
    Recording.Recording,
    "sections" | "writes" | "faults" | "steals" | "reservations" | "permitGrants" | "newSection"
  >
{
  /** Every write the processes applied, and the held ones as they were delivered. */
  readonly late: LateLog
  /** What the processes' lease sessions did (the `session` class). */
  readonly sessions: SessionTally
  /** What the read/write locks did beyond their sections (the `readWrite` class). */
  readonly readWrite: ReadWriteTally
  /** The lock each holder's last acquiring write was sent for, by holder (see `process.ts`). */
  readonly targets: Map<string, string>
  /** The owner of every lock a take of several in one call was answered as taking (see `process.ts`). */
  readonly takenAtOnce: Set<string>
  /**
   * A write at the start, then `count` steps of `stepMs` each ending in a write. `under` permits of a semaphore, the
   * writes go to no fenced resource; under a read/write lock held in its `mode`, to the resource behind the lock, a
   * writer's as writes and a reader's as reads. `between(k)` runs after write `k` but the last, before the step's wait.
   */
  readonly steps: <E = never>(
    name: string,
    fence: number,
    section: number,
    by: number,
    count: number,
    stepMs: number,
    under?: Under,
    between?: (k: number) => Effect.Effect<void, E>
  ) => Effect.Effect<void, E>
  /** Notes that the use was called now. */
  readonly requested: (record: Simulation.SectionRecord) => Effect.Effect<void>
  /** Notes when the critical section ended and in what state its lease was. */
  readonly endWith: (record: Simulation.SectionRecord, lease: Held) => Effect.Effect<void>
  /** Notes, from a detached fiber (the section may never look), when `lease` is lost; the fiber joins `daemons`. */
  readonly watchLoss: (
    record: Simulation.SectionRecord,
    lease: Held,
    daemons: Array<Fiber.Fiber<void>>
  ) => Effect.Effect<void>
  /** Notes how a use ended. */
  readonly outcomeOf: (record: Simulation.SectionRecord) => (exit: Exit.Exit<unknown, unknown>) => Effect.Effect<void>
  /**
   * Notes how one lock of a set taken together ended: lost only with the loss of its own name; the loss of another
   * lock of the set interrupted its section.
   */
  readonly outcomeOfOneOf: (
    record: Simulation.SectionRecord
  ) => (exit: Exit.Exit<unknown, unknown>) => Effect.Effect<void>
}

/** What the writes of a section that holds permits are made under: how many, and a read/write lock's mode. @internal */
export interface Under {
  readonly permits: number
  readonly mode?: ReadWriteMode.Mode | undefined
}

/** What the recorder reads of a held lock's lease or of held permits. @internal */
export interface Held {
  readonly status: Effect.Effect<Lease.LeaseStatus>
  readonly lost: Effect.Effect<never, LockError.LockLost>
}

/** How a use ended, as the core records it. */
const endingOf = (exit: Exit.Exit<unknown, unknown>): Recording.Ending => {
  if (Exit.isSuccess(exit)) return { _tag: "Completed" }
  const failure = EffectLine.findErrorOption(exit.cause)
  if (Option.isSome(failure)) return { _tag: "Failed", error: failure.value as SectionRecord.ErrorFields }
  if (EffectLine.hasDies(exit.cause)) return { _tag: "Died", detail: Cause.pretty(exit.cause) }
  return { _tag: "Interrupted" }
}

/**
 * A recorder on `timeline`'s true time, with a fresh fenced resource.
 *
 * @internal
 */
export const makeRecorder = (timeline: Timeline): Recorder => {
  const recording = Recording.make(timeline)
  const { faults, newSection, permitGrants, reservations, sections, steals, writes } = recording

  const write = (name: string, fence: number, section: number, by: number, under: Under | undefined) =>
    Effect.sync(() => recording.write(name, fence, section, by, under?.permits, under?.mode))

  return {
    sections,
    writes,
    faults,
    steals,
    reservations,
    permitGrants,
    late: makeLateLog(timeline),
    sessions: emptySessions(),
    readWrite: emptyReadWrite(),
    targets: new Map(),
    takenAtOnce: new Set(),
    newSection,
    steps: (name, fence, section, by, count, stepMs, under, between) =>
      Effect.gen(function*() {
        yield* write(name, fence, section, by, under)
        for (let k = 0; k < count; k++) {
          if (between !== undefined) yield* between(k)
          yield* Effect.sleep(stepMs)
          yield* write(name, fence, section, by, under)
        }
      }),
    requested: (record) => Effect.sync(() => recording.requested(record)),
    endWith: (record, lease) =>
      Effect.flatMap(lease.status, (status) => Effect.sync(() => recording.ended(record, status))),
    watchLoss: (record, lease, daemons) =>
      Effect.flatMap(
        EffectLine.forkDetach(EffectLine.catch(lease.lost, () => Effect.sync(() => recording.lost(record)))),
        (fiber) =>
          Effect.sync(() => {
            daemons.push(fiber)
          })
      ),
    outcomeOf: (record) => (exit) => Effect.sync(() => recording.finished(record, endingOf(exit))),
    outcomeOfOneOf: (record) => (exit) =>
      Effect.sync(() => {
        const ending = endingOf(exit)
        const elsewhere = ending._tag === "Failed" && ending.error._tag === "LockLost" &&
          (ending.error as { readonly name?: unknown }).name !== record.name
        recording.finished(record, elsewhere ? { _tag: "Interrupted" } : ending)
      })
  }
}
