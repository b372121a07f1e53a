/**
 * What a simulation records, at a timeline's true time, without a runtime: every planned use of a lock or a semaphore
 * (when its critical section ran and how it ended), every write to the fenced resource, every injected fault, every
 * operator's force release, every reservation, and what the store granted each semaphore holder. Each Effect line
 * notes into it from its fibers.
 *
 * @since 1.0.0
 */
import type * as ReadWriteMode from "../record/ReadWriteMode.js"
import type * as History from "./History.js"
import type * as PermitGrant from "./PermitGrant.js"
import * as SectionRecord from "./SectionRecord.js"
import type * as Timeline from "./Timeline.js"
import * as WriteRecord from "./WriteRecord.js"

/**
 * How a use ended, as its line's runtime tells it: its program completed, failed with an error, died with a defect
 * (shown as `detail`), or was interrupted.
 *
 * @since 1.0.0
 * @category models
 */
export type Ending =
  | { readonly _tag: "Completed" }
  | { readonly _tag: "Failed"; readonly error: SectionRecord.ErrorFields }
  | { readonly _tag: "Died"; readonly detail: string }
  | { readonly _tag: "Interrupted" }

/**
 * The records of one run, and the notes that fill them at the timeline's true time.
 *
 * @since 1.0.0
 * @category models
 */
export interface Recording {
  readonly sections: Array<SectionRecord.SectionRecord>
  readonly writes: Array<WriteRecord.WriteRecord>
  readonly faults: Array<History.FaultRecord>
  readonly steals: Array<History.StealRecord>
  readonly reservations: Array<History.ReservationRecord>
  /** What the store granted each semaphore holder, by holder name. */
  readonly permitGrants: Map<string, PermitGrant.PermitGrant>
  /** A new record of a use, not yet started. */
  readonly newSection: (
    index: number,
    process: string,
    name: string,
    api: SectionRecord.SectionRecord["api"]
  ) => SectionRecord.SectionRecord
  /**
   * A write of `section` (by use `by`) with `fence`, now: to the fenced resource, or under `permits`, to none, but
   * under a read/write lock held in `mode`, to the resource behind it.
   */
  readonly write: (
    name: string,
    fence: number,
    section: number,
    by: number,
    permits: number | undefined,
    mode?: ReadWriteMode.Mode
  ) => void
  /** Notes that the use was called now. */
  readonly requested: (record: SectionRecord.SectionRecord) => void
  /** Notes that the critical section ended now, with its lease in `status`. */
  readonly ended: (
    record: SectionRecord.SectionRecord,
    status: Parameters<typeof SectionRecord.describeStatus>[0]
  ) => void
  /** Notes that the use's lease was lost now, unless a loss was noted before. */
  readonly lost: (record: SectionRecord.SectionRecord) => void
  /** Notes that the use finished now, and how. */
  readonly finished: (record: SectionRecord.SectionRecord, ending: Ending) => void
}

const noteEnding = (record: SectionRecord.SectionRecord, ending: Ending): void => {
  switch (ending._tag) {
    case "Completed":
      record.outcome = "completed"
      return
    case "Failed":
      SectionRecord.failWith(record, ending.error)
      return
    case "Died":
      record.outcome = "defect"
      record.detail = ending.detail
      return
    case "Interrupted":
      record.outcome = "interrupted"
  }
}

/**
 * Empty records on `timeline`'s true time, with a fresh fenced resource.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (timeline: Timeline.Timeline): Recording => {
  const log = WriteRecord.makeLog()
  const sections: Array<SectionRecord.SectionRecord> = []
  return {
    sections,
    writes: log.writes,
    faults: [],
    steals: [],
    reservations: [],
    permitGrants: new Map(),
    newSection: (index, process, name, api) => {
      const record = SectionRecord.make(index, process, name, api)
      sections.push(record)
      return record
    },
    write: (name, fence, section, by, permits, mode) =>
      log.write(timeline.now, name, fence, section, by, permits, mode),
    requested: (record) => {
      record.requestedAt = timeline.now
    },
    ended: (record, status) => {
      record.end = timeline.now
      record.leaseStatus = SectionRecord.describeStatus(status)
    },
    lost: (record) => {
      record.lostAt ??= timeline.now
    },
    finished: (record, ending) => {
      record.finishedAt = timeline.now
      noteEnding(record, ending)
    }
  }
}
