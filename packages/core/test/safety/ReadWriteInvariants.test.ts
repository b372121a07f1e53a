import { describe, expect, it } from "vitest"
import * as ReadWriteMode from "../../src/record/ReadWriteMode.js"
import * as ReadWriteInvariants from "../../src/safety/ReadWriteInvariants.js"
import * as Report from "../../src/safety/Report.js"
import type * as SectionRecord from "../../src/simulation/SectionRecord.js"
import * as WriteRecord from "../../src/simulation/WriteRecord.js"
import { history, schedule, section } from "./fixtures.js"

/** A section that held the read/write lock "a" in `mode` with `fence`, from `start` to `end`. */
const holder = (index: number, mode: ReadWriteMode.Mode, fence: number, start: number, end: number) =>
  section(index, { mode, fence, start, end, permits: ReadWriteMode.permitsOf(mode), limit: ReadWriteMode.limit })

const exclusion = (
  sections: ReadonlyArray<SectionRecord.SectionRecord>,
  writes: ReadonlyArray<WriteRecord.WriteRecord> = []
) => ReadWriteInvariants.readWriteExclusion(history({ sections, writes }), sections)

describe("ReadWriteInvariants.readWriteExclusion", () => {
  it("readers side by side break nothing; a writer beside a reader or another writer is caught", () => {
    const readers = [holder(0, "read", 1, 0, 500), holder(1, "read", 2, 100, 600), holder(2, "read", 3, 200, 300)]
    expect(exclusion(readers)).toEqual([])
    const writerAmongReaders = [...readers, holder(3, "write", 4, 400, 700)]
    expect(exclusion(writerAmongReaders)).toEqual([
      {
        invariant: "readWriteExclusion",
        message: `read/write lock "a": reader p1#0 (fence 1) [0, 500] overlaps writer p4#3 (fence 4) [400, 700]`
      },
      {
        invariant: "readWriteExclusion",
        message: `read/write lock "a": reader p2#1 (fence 2) [100, 600] overlaps writer p4#3 (fence 4) [400, 700]`
      }
    ])
    const writers = [holder(0, "write", 1, 0, 500), holder(1, "write", 2, 499, 900)]
    expect(exclusion(writers).map((f) => f.message)).toEqual([
      `read/write lock "a": writer p1#0 (fence 1) [0, 500] overlaps writer p2#1 (fence 2) [499, 900]`
    ])
  })

  it("judges each section until it ended or made its last write, and only sections that ran", () => {
    // A section that ends at an instant no longer runs at it.
    const handover = [holder(0, "read", 1, 0, 500), holder(1, "write", 2, 500, 900), holder(2, "read", 3, 900, 1_000)]
    expect(exclusion(handover)).toEqual([])
    // A reader interrupted on the loss of its lease, whose last read came after a writer began.
    const log = WriteRecord.makeLog()
    log.write(0, "a", 1, 0, 0, 1, "read")
    log.write(600, "a", 1, 0, 0, 1, "read")
    const lateRead = [holder(0, "read", 1, 0, 500), holder(1, "write", 2, 550, 900)]
    expect(exclusion(lateRead, log.writes).map((f) => f.message)).toEqual([
      `read/write lock "a": reader p1#0 (fence 1) [0, 600] overlaps writer p2#1 (fence 2) [550, 900]`
    ])
    // A writer that waited and gave up ran nothing: the reader beside it broke nothing.
    const gaveUp = section(1, { mode: "write", outcome: "notAcquired", finishedAt: 400 })
    expect(exclusion([holder(0, "read", 1, 0, 500), gaveUp])).toEqual([])
  })

  it("a write or a read that the resource behind the lock refused is caught", () => {
    const log = WriteRecord.makeLog()
    log.write(0, "a", 5, 1, 1, ReadWriteMode.limit, "write")
    log.write(100, "a", 4, 0, 0, 1, "read")
    log.write(200, "a", 3, 2, 2, ReadWriteMode.limit, "write")
    log.write(300, "a", 6, 3, 3, 1, "read")
    expect(log.writes.map((w) => w.accepted)).toEqual([true, false, false, true])
    expect(exclusion([], log.writes)).toEqual([
      {
        invariant: "readWriteExclusion",
        message: `read/write lock "a": a stale read by section #0 (fence 4) at 100, after a writer with fence 5: the ` +
          "resource behind the lock refused it"
      },
      {
        invariant: "readWriteExclusion",
        message:
          `read/write lock "a": a stale write by section #2 (fence 3) at 200, after a writer with fence 5: the ` +
          "resource behind the lock refused it"
      }
    ])
  })
})

describe("ReadWriteInvariants.readWriteFences", () => {
  it("a writer's fence not above an earlier reader's, or a reader's not above an earlier writer's, is caught", () => {
    const readers = [holder(0, "read", 3, 0, 500), holder(1, "read", 2, 100, 600)]
    expect(ReadWriteInvariants.readWriteFences(readers)).toEqual([])
    const writerBelow = [...readers, holder(2, "write", 3, 700, 800)]
    expect(ReadWriteInvariants.readWriteFences(writerBelow)).toEqual([{
      invariant: "readWriteFences",
      message: `read/write lock "a": writer p3#2 (fence 3) started at 700 with a fence not above that of reader ` +
        "p1#0 (fence 3), which started at 0"
    }])
    const readerBelow = [holder(0, "write", 7, 0, 500), holder(1, "read", 6, 600, 700)]
    expect(ReadWriteInvariants.readWriteFences(readerBelow).map((f) => f.message)).toEqual([
      `read/write lock "a": reader p2#1 (fence 6) started at 600 with a fence not above that of writer p1#0 ` +
      "(fence 7), which started at 0"
    ])
    // Sections of another name, or of a lock of this one, are not compared.
    const apart = [holder(0, "write", 7, 0, 500), { ...holder(1, "read", 6, 600, 700), name: "b" }]
    expect(ReadWriteInvariants.readWriteFences([...apart, section(2, { fence: 1, start: 800, end: 900 })])).toEqual([])
  })
})

describe("ReadWriteInvariants in a report", () => {
  it("holders of a read/write lock are held to its invariants and the semaphore's, not to the lock's", () => {
    const sections = [holder(0, "read", 1, 0, 500), holder(1, "read", 2, 100, 600), holder(2, "write", 3, 600, 700)]
    const sched = schedule({ mode: "readWrite" })
    expect(Report.check(history({ schedule: sched, sections })).violations).toEqual([])
    const overlapping = [...sections, holder(3, "write", 4, 650, 800)]
    const broken = Report.check(history({ schedule: sched, sections: overlapping })).violations
    expect(new Set(broken.map((v) => v.invariant))).toEqual(new Set(["readWriteExclusion", "permitLimit"]))
  })
})
