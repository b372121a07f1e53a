import { describe, expect, it } from "vitest"
import * as Invariant from "../../src/safety/Invariant.js"
import * as Report from "../../src/safety/Report.js"
import { history, schedule, section, write } from "./fixtures.js"

describe("Report.check", () => {
  it("a clean history of two sections in turn breaks nothing", () => {
    const report = Report.check(history({
      sections: [section(0, { fence: 1, start: 0, end: 100 }), section(1, { fence: 2, start: 100, end: 200 })],
      writes: [write({ at: 0, fence: 1 }), write({ at: 100, fence: 2, section: 1, highestBefore: 1 })]
    }))
    expect(report.violations).toEqual([])
    expect(report.anomalies).toEqual([])
    expect(report.sections).toBe(2)
    expect(report.staleWritesRejected).toBe(0)
    expect(report.expected).toEqual(Invariant.invariants)
  })

  it("overlapping sections of one name break mutual exclusion; a lost lease that ran on breaks interruption", () => {
    const report = Report.check(history({
      sections: [
        section(0, { fence: 1, start: 0, end: 300, leaseStatus: "Lost(expired)" }),
        section(1, { fence: 2, start: 200, end: 400 })
      ]
    }))
    expect(report.violations.map((v) => v.invariant)).toEqual(["mutualExclusion", "interruptBeforeTakeover"])
    expect(report.violations[0]!.message).toBe(`"a": p1#0 (fence 1) [0, 300] overlaps p2#1 (fence 2) [200, 400]`)
  })

  it("a section counts as running until its last write, even after it ended", () => {
    const report = Report.check(history({
      sections: [section(0, { fence: 1, start: 0, end: 100 }), section(1, { fence: 2, start: 150, end: 300 })],
      writes: [write({ at: 180, fence: 1 })]
    }))
    expect(report.violations.map((v) => v.invariant)).toEqual(["mutualExclusion"])
    expect(report.violations[0]!.message).toContain("[0, 180]")
  })

  it("fences that do not increase in the order sections start break fence order", () => {
    const report = Report.check(history({
      sections: [section(0, { fence: 5, start: 0, end: 100 }), section(1, { fence: 3, start: 100, end: 200 })]
    }))
    expect(report.violations).toEqual([{
      invariant: "fenceOrder",
      message: `"a": p2#1 (fence 3) started at 100 after p1#0 (fence 5) with a fence not above it`
    }])
  })

  it("what a class does not promise is an anomaly, not a violation", () => {
    const report = Report.check(history({
      schedule: schedule({ mode: "longPause" }),
      sections: [section(0, { fence: 1, start: 0, end: 300 }), section(1, { fence: 2, start: 200, end: 400 })]
    }))
    expect(report.violations).toEqual([])
    expect(report.anomalies.map((a) => a.invariant)).toEqual(["mutualExclusion"])
  })

  it("a stale write the resource rejected breaks mutual exclusion; one it wrongly accepted breaks the resource", () => {
    const rejected = Report.check(history({
      writes: [write({ at: 0, fence: 2 }), write({ at: 10, fence: 1, accepted: false, highestBefore: 2 })]
    }))
    expect(rejected.violations.map((v) => v.invariant)).toEqual(["mutualExclusion"])
    expect(rejected.staleWritesRejected).toBe(1)
    const accepted = Report.check(history({ writes: [write({ at: 0, fence: 2 }), write({ at: 10, fence: 1 })] }))
    expect(accepted.violations).toEqual([{
      invariant: "fencedResource",
      message: `accepted fence 1 after 2: section #0 wrote "a" with fence 1 at 10`
    }])
  })

  it("a lock and a semaphore of one name are apart: their sections may overlap", () => {
    const report = Report.check(history({
      sections: [
        section(0, { fence: 1, start: 0, end: 300 }),
        section(1, { fence: 7, start: 100, end: 200, permits: 1, limit: 1 })
      ]
    }))
    expect(report.violations).toEqual([])
  })

  it("a child on its parent's lease is part of the parent's section, not a section of its own", () => {
    const report = Report.check(history({
      sections: [
        section(0, { fence: 1, start: 0, end: 300 }),
        section(1, { fence: 1, start: 100, end: 200, parent: 0, borrowedFrom: 0 })
      ]
    }))
    expect(report.violations).toEqual([])
    expect(report.sections).toBe(1)
  })

  it("checkSchedule checks what the given run recorded", () => {
    const runs: Array<number> = []
    const report = Report.checkSchedule(schedule({ seed: 9 }), (s) => {
      runs.push(s.seed)
      return history({ schedule: s, sections: [section(0, { outcome: "defect", detail: "boom" })] })
    })
    expect(runs).toEqual([9])
    expect(report.violations).toEqual([{ invariant: "noDefects", message: "p1#0 (fence undefined) died: boom" }])
  })
})

describe("Invariant.expected", () => {
  it("skew and clock steps promise everything under observed takeover, only the unconditional ones otherwise", () => {
    expect(Invariant.expected(schedule({ mode: "skew", takeover: "observed" }))).toEqual(Invariant.invariants)
    const absolute = Invariant.expected(schedule({ mode: "clockStep", takeover: "absolute" }))
    expect(absolute).not.toContain("mutualExclusion")
    expect(absolute).toContain("fencedResource")
  })

  it("a force release keeps fence order, reservations and the permit limit promised, not exclusion", () => {
    const steal = Invariant.expected(schedule({ mode: "steal" }))
    expect(steal).toEqual(expect.arrayContaining(["fenceOrder", "reservationBound", "permitLimit"]))
    expect(steal).not.toContain("mutualExclusion")
    expect(steal).not.toContain("interruptBeforeTakeover")
  })
})
