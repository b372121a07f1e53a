import { describe, expect, it } from "vitest"
import * as Batch from "../../src/safety/Batch.js"
import * as Fault from "../../src/simulation/Fault.js"
import * as Generate from "../../src/simulation/Generate.js"
import type * as History from "../../src/simulation/History.js"
import { history, section } from "./fixtures.js"

/** A run that records nothing, but a defect in every section of seed 3's schedule: the failure to find. */
const run: History.Run = (schedule) =>
  history({
    schedule,
    sections: schedule.seed === 3
      ? schedule.sections.map((s, i) => section(i, { process: s.process, outcome: "defect", detail: "boom" }))
      : [],
    faults: schedule.faults.slice(0, 1).map((f) => ({
      at: 0,
      call: { process: f.process ?? "p1", operation: f.operation, nth: f.nth },
      fault: f.fault
    })),
    deliveries: [{
      call: { process: "p1", operation: "renewPermits", nth: 0 },
      fault: { kind: "lateRetry", ms: 10, giveUpMs: 5 },
      name: "a",
      fence: 3,
      semaphore: true,
      sentAt: 0,
      at: 10,
      outcome: "Renewed",
      after: ["laterWrite", "released"]
    }]
  })

describe("Batch.runMany", () => {
  it("tallies every seed by class, counts faults by kind and shrinks the failure to what still fails", () => {
    const progress: Array<number> = []
    const summary = Batch.runMany({ from: 1, count: 5, mode: "semaphore", onProgress: (n) => progress.push(n) }, run)
    expect(progress).toEqual([1, 2, 3, 4, 5])
    expect(summary.schedules).toBe(5)
    expect(Object.keys(summary.byMode).every((k) => k.startsWith("semaphore/"))).toBe(true)
    expect(Object.values(summary.byMode).reduce((a, b) => a + b, 0)).toBe(5)
    expect(Object.keys(summary.faultsByKind)).toEqual(Fault.kinds)
    const faults = [1, 2, 3, 4, 5].filter((seed) => Generate.generate(seed, { mode: "semaphore" }).faults.length > 0)
    expect(Object.values(summary.faultsByKind).reduce((a, b) => a + b, 0)).toBe(faults.length)
    const semaphore = summary.byClass.semaphore!
    expect(semaphore.schedules).toBe(5)
    expect(semaphore.lateOnSemaphores).toEqual({
      delivered: 5,
      afterLaterWrite: 5,
      afterGiveBack: 0,
      afterAcquired: 0,
      afterRelease: 5
    })
    expect(semaphore.lateOnLocks.delivered).toBe(0)
    expect(semaphore.failed).toBe(1)
    expect(semaphore.violations).toEqual({ noDefects: 1 })
    expect(semaphore.failingSeeds).toEqual([3])
    expect(summary.failures.map((f) => f.seed)).toEqual([3])
    // Every section of the failing schedule fails alike: one is enough.
    expect(summary.failures[0]!.shrunk.history.schedule.sections).toHaveLength(1)
  })

  it("keeps a failure's own report when told not to shrink", () => {
    const summary = Batch.runMany({ from: 3, count: 1, mode: "safe", shrink: false }, run)
    const failure = summary.failures[0]!
    expect(failure.shrunk.history.schedule).toEqual(Generate.generate(3, { mode: "safe" }))
    expect(failure.violations.every((v) => v.invariant === "noDefects")).toBe(true)
  })

  it("failsLike: a schedule fails like a report if it breaks the report's first violated invariant", () => {
    const report = Batch.runMany({ from: 3, count: 1, shrink: false }, run).failures[0]!.shrunk
    expect(Batch.failsLike(report, run)(Generate.generate(3))).toBe(true)
    expect(Batch.failsLike(report, run)(Generate.generate(4))).toBe(false)
  })
})
