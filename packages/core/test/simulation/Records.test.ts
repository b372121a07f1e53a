import { describe, expect, it } from "vitest"
import * as BadOption from "../../src/simulation/BadOption.js"
import * as FencedResource from "../../src/simulation/FencedResource.js"
import * as LateDelivery from "../../src/simulation/LateDelivery.js"
import * as Schedule from "../../src/simulation/Schedule.js"
import * as SectionOptions from "../../src/simulation/SectionOptions.js"
import * as SectionRecord from "../../src/simulation/SectionRecord.js"
import * as WallClock from "../../src/simulation/WallClock.js"
import * as WriteRecord from "../../src/simulation/WriteRecord.js"

describe("FencedResource and WriteRecord", () => {
  it("the resource accepts a fence no lower than the highest it saw, per name", () => {
    const resource = FencedResource.make()
    expect(resource.write("a", 5)).toEqual({ accepted: true })
    expect(resource.write("a", 5)).toEqual({ accepted: true, highestBefore: 5 })
    expect(resource.write("a", 4)).toEqual({ accepted: false, highestBefore: 5 })
    expect(resource.write("b", 1)).toEqual({ accepted: true })
  })

  it("the resource behind a read/write lock keeps a writer's fence, and refuses a write or a read below it", () => {
    const resource = FencedResource.makeReadWrite()
    expect(resource.access("a", 3, "read")).toEqual({ accepted: true })
    // Readers do not raise it: a writer that acquired after a reader may have a lower fence than a later reader.
    expect(resource.access("a", 5, "read")).toEqual({ accepted: true })
    expect(resource.access("a", 4, "write")).toEqual({ accepted: true })
    expect(resource.access("a", 3, "read")).toEqual({ accepted: false, highestBefore: 4 })
    expect(resource.access("a", 2, "write")).toEqual({ accepted: false, highestBefore: 4 })
    expect(resource.access("a", 4, "read")).toEqual({ accepted: true, highestBefore: 4 })
    expect(resource.access("b", 1, "write")).toEqual({ accepted: true })
  })

  it("the log sends lock writes through the resource and keeps writes under permits apart", () => {
    const log = WriteRecord.makeLog()
    log.write(0, "a", 2, 0, 0, undefined)
    log.write(5, "a", 1, 1, 3, undefined)
    log.write(6, "a", 1, 2, 2, 2)
    expect(log.writes).toEqual([
      { at: 0, name: "a", fence: 2, section: 0, accepted: true, highestBefore: undefined },
      { at: 5, name: "a", fence: 1, section: 1, by: 3, accepted: false, highestBefore: 2 },
      { at: 6, name: "a", fence: 1, section: 2, accepted: true, highestBefore: undefined, permits: 2 }
    ])
  })

  it("the log sends writes and reads under a read/write lock to the resource behind it, apart from a lock's", () => {
    const log = WriteRecord.makeLog()
    log.write(0, "a", 9, 0, 0, undefined)
    log.write(1, "a", 2, 1, 1, 64, "write")
    log.write(2, "a", 1, 2, 2, 1, "read")
    expect(log.writes).toEqual([
      { at: 0, name: "a", fence: 9, section: 0, accepted: true, highestBefore: undefined },
      { at: 1, name: "a", fence: 2, section: 1, accepted: true, highestBefore: undefined, permits: 64, mode: "write" },
      { at: 2, name: "a", fence: 1, section: 2, accepted: false, highestBefore: 2, permits: 1, mode: "read" }
    ])
  })
})

describe("SectionRecord", () => {
  it("a failure's tag decides the outcome; a loss keeps its fence and reason; owners are masked", () => {
    const record = SectionRecord.make(0, "p1", "a", "acquire")
    expect(record.outcome).toBe("unfinished")
    SectionRecord.failWith(record, {
      _tag: "LockLost",
      fence: 3,
      reason: "expired",
      message: `lost by ${"ab".repeat(16)}`
    })
    expect(record).toMatchObject({ outcome: "lost", lostFence: 3, lostReason: "expired", detail: "lost by <owner>" })
    const outcomes = [
      "LockNotAcquired",
      "TimeoutException",
      "TimeoutError",
      "LockStoreError",
      "LockConfigError",
      "Other"
    ]
      .map((_tag) => SectionRecord.outcomeOfError({ _tag }))
    expect(outcomes).toEqual(["notAcquired", "notAcquired", "notAcquired", "storeError", "configError", "defect"])
    expect(SectionRecord.describeStatus({ _tag: "Lost", error: { reason: "stolen" } })).toBe("Lost(stolen)")
    expect(SectionRecord.describeStatus({ _tag: "AtRisk" })).toBe("AtRisk")
  })
})

describe("LateDelivery.outcomeOfAnswer", () => {
  it("shows an answer by its tag, and one without a tag as answered", () => {
    expect(LateDelivery.outcomeOfAnswer({ _tag: "Renewed", record: {} })).toBe("Renewed")
    expect(LateDelivery.outcomeOfAnswer({ _tag: 3 })).toBe("answered")
    expect(LateDelivery.outcomeOfAnswer(undefined)).toBe("answered")
    expect(LateDelivery.outcomeOfAnswer({ name: "a" })).toBe("answered")
  })
})

describe("LateDelivery.makeLog", () => {
  it("a delivery names what its sender wrote to the same name after sending it, and nothing else", () => {
    const log = LateDelivery.makeLog()
    const held = { name: "a", fence: 3 }
    log.applied({ at: 5, process: "p1", operation: "renew", request: held, outcome: "Renewed" })
    log.applied({ at: 20, process: "p1", operation: "release", request: { name: "a" }, outcome: "Released" })
    log.applied({ at: 30, process: "p1", operation: "tryAcquire", request: { name: "a" }, outcome: "Acquired" })
    log.applied({ at: 40, process: "p1", operation: "release", request: { name: "a", fence: 4 }, outcome: "Released" })
    // Not the sender's, another name, a semaphore, or before it was sent.
    log.applied({ at: 30, process: "p2", operation: "renew", request: { name: "a" }, outcome: "Renewed" })
    log.applied({ at: 30, process: "p1", operation: "renew", request: { name: "b" }, outcome: "Renewed" })
    log.applied({ at: 30, process: "p1", operation: "renewPermits", request: { name: "a" }, outcome: "Renewed" })
    log.applied({ at: 8, process: "p1", operation: "renew", request: { name: "a" }, outcome: "Renewed" })
    const call = { process: "p1", operation: "renew" as const, nth: 0 }
    log.delivered({ call, fault: { kind: "lateHang", ms: 50 }, request: held, heldMs: 50, outcome: "Lost" }, 60)
    expect(log.deliveries).toEqual([{
      call,
      fault: { kind: "lateHang", ms: 50 },
      name: "a",
      fence: 3,
      semaphore: false,
      sentAt: 10,
      at: 60,
      outcome: "Lost",
      after: ["laterWrite", "giveBack", "acquired", "released"]
    }])
  })

  it("a held take of several locks is one delivery of all of them, after what its sender wrote to any", () => {
    const log = LateDelivery.makeLog()
    const parts = [{ name: "a" }, { name: "b" }, { name: "c" }]
    // The held take itself, logged per lock as it applied: not a write of its sender since.
    for (const part of parts) {
      log.applied({ at: 60, process: "p1", operation: "tryAcquireAll", request: part, outcome: "Acquired" })
    }
    // Meanwhile the sender took "b" one at a time, and gave back what the take may have left on "c".
    log.applied({ at: 20, process: "p1", operation: "tryAcquire", request: { name: "b" }, outcome: "Acquired" })
    log.applied({ at: 30, process: "p1", operation: "release", request: { name: "c" }, outcome: "NotHeld" })
    log.applied({ at: 30, process: "p1", operation: "release", request: { name: "d" }, outcome: "Released" })
    const call = { process: "p1", operation: "tryAcquireAll" as const, nth: 0 }
    const fault = { kind: "lateTimeout" as const, ms: 50, giveUpMs: 5 }
    log.delivered({ call, fault, request: { requests: parts }, heldMs: 50, outcome: "Acquired" }, 60)
    expect(log.deliveries).toEqual([{
      call,
      fault,
      name: "a",
      together: ["b", "c"],
      fence: undefined,
      semaphore: false,
      sentAt: 10,
      at: 60,
      outcome: "Acquired",
      after: ["laterWrite", "giveBack", "acquired"]
    }])
    // A take of several that acquired, later than a held write to one of its locks, counts as an acquisition.
    const renew = { name: "b", fence: 1 }
    log.applied({ at: 70, process: "p1", operation: "tryAcquireAll", request: { name: "b" }, outcome: "Acquired" })
    log.delivered({ call: { ...call, operation: "renew" }, fault, request: renew, heldMs: 20, outcome: "Lost" }, 80)
    expect(log.deliveries[1]).toMatchObject({ name: "b", after: ["laterWrite", "acquired"] })
    expect(log.deliveries[1]).not.toHaveProperty("together")
  })

  it("a held write delivered before its sender wrote again comes after nothing", () => {
    const log = LateDelivery.makeLog()
    const call = { process: "p1", operation: "inspectSemaphore" as const, nth: 0 }
    log.delivered({ call, fault: { kind: "lateRetry" }, request: "s", heldMs: 0, outcome: "failed" }, 1)
    expect(log.deliveries[0]).toMatchObject({ name: "s", fence: undefined, semaphore: false, after: [] })
  })
})

describe("WallClock.offsetOf and BadOption.describe", () => {
  it("a clock's offset is constant without steps; jumps add, a freeze holds the clock back while it lasts", () => {
    expect(WallClock.offsetOf({ id: "p", offsetMs: 7, pauses: [] })).toBe(7)
    const offset = WallClock.offsetOf({
      id: "p",
      offsetMs: 10,
      pauses: [],
      clockSteps: [{ at: 200, kind: "freeze", ms: 50 }, { at: 100, kind: "jump", ms: -1_000 }]
    }) as (now: number) => number
    expect([0, 100, 200, 220, 250, 400].map(offset)).toEqual([10, -990, -990, -1010, -1040, -1040])
  })

  it("describes every bad option with its value and text, from the schedule's timings", () => {
    const t = Schedule.defaultTimings
    const all = BadOption.badOptions.map((bad) => BadOption.describe(bad, t))
    expect(new Set(all.map((d) => d.show)).size).toBe(BadOption.badOptions.length)
    expect(BadOption.describe("maxClockSkewNegativeDuration", t).value).toEqual({ millis: -10_000 })
    const warnAt = BadOption.describe("warnAtInsideMargin", t)
    expect(warnAt.option).toBe("warnAt")
    expect(warnAt.value).toBeGreaterThan(t.leaseMs - t.safetyMarginMs)
    expect(warnAt.value).toBeLessThan(t.leaseMs)
    expect(BadOption.describe("heartbeatNegative", t)).toEqual({
      option: "heartbeat",
      value: -t.heartbeatMs,
      show: `heartbeat: ${-t.heartbeatMs}`
    })
  })
})

describe("SectionOptions.of", () => {
  it("a section passes the schedule's timings and takeover, its own wait, and a holder name of its own", () => {
    const t = Schedule.defaultTimings
    const schedule = {
      seed: 1,
      mode: "safe" as const,
      takeover: "observed" as const,
      timings: t,
      processes: [],
      sections: [],
      faults: [],
      horizonMs: 1
    }
    const spec = { process: "p2", name: "a", at: 0, steps: 1, stepMs: 1, wait: 300, api: "acquire" as const }
    expect(SectionOptions.of(schedule, spec, 4)).toEqual({
      lease: t.leaseMs,
      heartbeat: t.heartbeatMs,
      safetyMargin: t.safetyMarginMs,
      maxClockSkew: t.maxClockSkewMs,
      pollInterval: t.pollIntervalMs,
      takeover: "observed",
      wait: 300,
      holder: "p2#4"
    })
    expect(SectionOptions.holderOf("p1", 12)).toBe("p1#12")
  })
})
