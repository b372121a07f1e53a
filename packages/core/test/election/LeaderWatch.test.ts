import { describe, expect, it } from "vitest"
import * as LeaderWatch from "../../src/election/LeaderWatch.js"
import { freeRecord, lockRecord } from "../acquire/records.js"

describe("LeaderWatch", () => {
  it("counts a record unchanged from the read that first showed its state", () => {
    const record = lockRecord({ version: 3 })
    expect(LeaderWatch.unchangedSince(record, lockRecord({ version: 3 }), 100, 900)).toBe(100)
    expect(LeaderWatch.unchangedSince(record, lockRecord({ version: 4 }), 100, 900)).toBe(900)
    expect(LeaderWatch.unchangedSince(record, lockRecord({ version: 3, fence: 8 }), 100, 900)).toBe(900)
    expect(LeaderWatch.unchangedSince(undefined, undefined, 100, 900)).toBe(100)
    expect(LeaderWatch.unchangedSince(undefined, record, 100, 900)).toBe(900)
  })

  describe("leaseLeft", () => {
    it("counts to leaseUntil on the wall clock in absolute mode", () => {
      const record = lockRecord({ leaseUntil: 10_000 })
      expect(LeaderWatch.leaseLeft(record, "absolute", 0, 9_000, 0)).toBe(1_000)
      expect(LeaderWatch.leaseLeft(record, "absolute", 0, 10_000, 0)).toBeUndefined()
    })

    it("counts a lease of the record unchanged on the monotonic clock in observed mode", () => {
      const record = lockRecord({ leaseUntil: 0, leaseMs: 3_000 })
      expect(LeaderWatch.leaseLeft(record, "observed", 1_000, 1e12, 2_000)).toBe(2_000)
      expect(LeaderWatch.leaseLeft(record, "observed", 1_000, 0, 4_000)).toBeUndefined()
    })

    it("has nothing left of a record that names no leader", () => {
      expect(LeaderWatch.leaseLeft(undefined, "absolute", 0, 0, 0)).toBeUndefined()
      expect(LeaderWatch.leaseLeft(freeRecord({ leaseUntil: 1e12 }), "absolute", 0, 0, 0)).toBeUndefined()
    })
  })

  describe("leaderOf", () => {
    it("names the leader of a live lease, its term dated by acquiredAt or else leaseUntil - leaseMs", () => {
      const record = lockRecord({ holder: "host-b", fence: 9, leaseUntil: 10_000, acquiredAt: 7_000, data: "10.0.0.2" })
      expect(LeaderWatch.leaderOf(record, "absolute", 0, 9_000, 0))
        .toEqual({ holder: "host-b", owner: "other", fence: 9, since: 7_000, data: "10.0.0.2" })
      const undated = lockRecord({ holder: undefined, leaseUntil: 10_000, leaseMs: 3_000, acquiredAt: undefined })
      expect(LeaderWatch.leaderOf(undated, "absolute", 0, 9_000, 0)).toMatchObject({ holder: "", since: 7_000 })
    })

    it("names none once the lease has run out, or for a free lock", () => {
      expect(LeaderWatch.leaderOf(lockRecord({ leaseUntil: 10_000 }), "absolute", 0, 10_000, 0)).toBeUndefined()
      expect(LeaderWatch.leaderOf(freeRecord(), "absolute", 0, 0, 0)).toBeUndefined()
    })
  })

  it("takes two answers as the same when both name none or the same term", () => {
    const leader = { holder: "h", owner: "o", fence: 1, since: 0, data: undefined }
    expect(LeaderWatch.sameLeader(undefined, undefined)).toBe(true)
    expect(LeaderWatch.sameLeader(leader, undefined)).toBe(false)
    expect(LeaderWatch.sameLeader(leader, { ...leader, data: "new", holder: "other" })).toBe(true)
    expect(LeaderWatch.sameLeader(leader, { ...leader, fence: 2 })).toBe(false)
    expect(LeaderWatch.sameLeader(leader, { ...leader, owner: "p" })).toBe(false)
  })

  it("reads when due, else sleeps to the read, or to the leader's end if that comes first and judges then", () => {
    expect(LeaderWatch.wait(500, 0)).toEqual({ _tag: "Read" })
    expect(LeaderWatch.wait(undefined, -3)).toEqual({ _tag: "Read" })
    expect(LeaderWatch.wait(50, 200)).toEqual({ _tag: "Judge", sleepMs: 50 })
    expect(LeaderWatch.wait(200, 200)).toEqual({ _tag: "Sleep", sleepMs: 200 })
    expect(LeaderWatch.wait(undefined, 200)).toEqual({ _tag: "Sleep", sleepMs: 200 })
  })

  describe("step", () => {
    it("reports a changed answer at once, even with a read in flight and none of the lease left", () => {
      const inFlight = { changed: true, leftMs: undefined, readInFlight: true, untilReadMs: 40 }
      expect(LeaderWatch.step(inFlight)).toEqual({ _tag: "Report" })
      expect(LeaderWatch.step({ ...inFlight, readInFlight: false, leftMs: 30 })).toEqual({ _tag: "Report" })
    })

    it("waits for a read in flight until the reported leader's lease runs out, or for its answer if none leads", () => {
      const inFlight = { changed: false, readInFlight: true, untilReadMs: -5 }
      expect(LeaderWatch.step({ ...inFlight, leftMs: 120 })).toEqual({ _tag: "Await", boundMs: 120 })
      expect(LeaderWatch.step({ ...inFlight, leftMs: undefined })).toEqual({ _tag: "Await", boundMs: undefined })
    })

    it("with no read in flight, reads when due or sleeps as wait says", () => {
      const idle = { changed: false, readInFlight: false }
      expect(LeaderWatch.step({ ...idle, leftMs: 50, untilReadMs: 0 })).toEqual({ _tag: "Read" })
      expect(LeaderWatch.step({ ...idle, leftMs: 50, untilReadMs: 200 })).toEqual({ _tag: "Judge", sleepMs: 50 })
      expect(LeaderWatch.step({ ...idle, leftMs: undefined, untilReadMs: 200 })).toEqual({
        _tag: "Sleep",
        sleepMs: 200
      })
    })
  })
})
