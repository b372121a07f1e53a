import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as SafetyChecker from "../src/SafetyChecker.js"
import * as Simulation from "../src/Simulation.js"

/** A fixed batch of seeds per mode: small enough for `npm test`, the large batch is `npm run check:safety`. */
const batch = (mode: Simulation.Mode | undefined, count: number) => SafetyChecker.runMany({ from: 1, count, mode })

describe("SafetyChecker", () => {
  it.effect("seeded schedules within the assumptions: every invariant holds", () =>
    Effect.sync(() => {
      const summary = batch("safe", 25)
      expect(summary.failures.map((f) => f.violations)).toEqual([])
      expect(summary.sections).toBeGreaterThan(100)
      expect(summary.staleWritesRejected).toBe(0)
      expect(Object.values(summary.faultsByKind).every((n) => n > 0)).toBe(true)
    }))

  it.effect("mixed seeds: no violation of what each schedule's assumptions promise", () =>
    Effect.sync(() => {
      expect(batch(undefined, 20).failures.map((f) => f.violations)).toEqual([])
    }))

  it.effect("skew beyond the bound: absolute mode overlaps, observed mode does not, fencing holds in both", () =>
    Effect.sync(() => {
      const summary = batch("skew", 20)
      expect(summary.failures).toEqual([])
      expect(summary.anomalies["skew/absolute"]?.mutualExclusion ?? 0).toBeGreaterThan(0)
      expect(summary.anomalies["skew/observed"]).toEqual({})
    }))

  it.effect("pauses longer than the lease: sections overlap, the fenced resource rejects the stale writes", () =>
    Effect.sync(() => {
      // A stale write needs the section to wake from the pause before the keeper does (which would interrupt it at
      // once); that phase is not rare, but 20 seeds happen to miss it.
      const summary = batch("longPause", 60)
      expect(summary.failures).toEqual([])
      const overlaps = Object.values(summary.anomalies).reduce((n, t) => n + (t.mutualExclusion ?? 0), 0)
      expect(overlaps).toBeGreaterThan(0)
      expect(summary.staleWritesRejected).toBeGreaterThan(0)
    }))

  it.effect("a paused holder resumes after another took over: its write is rejected by fence", () =>
    Effect.sync(() => {
      const schedule: Simulation.Schedule = {
        seed: 1,
        mode: "longPause",
        takeover: "absolute",
        timings: Simulation.defaultTimings,
        horizonMs: 15_000,
        // p1 stops for 5 s (a GC pause beyond the 2 s lease) in the middle of its section, just after its heartbeat
        // at 600 ms: the section's next step (due at 800 ms) wakes before the keeper (due at 1,200 ms), so p1 writes
        // before it can notice that its lease is gone.
        processes: [{ id: "p1", offsetMs: 0, pauses: [{ at: 650, ms: 5_000 }] }, { id: "p2", offsetMs: 0, pauses: [] }],
        sections: [
          { process: "p1", name: "a", at: 0, steps: 2, stepMs: 400, wait: "forever", api: "withLock" },
          { process: "p2", name: "a", at: 1_000, steps: 6, stepMs: 500, wait: "forever", api: "withLock" }
        ],
        faults: []
      }
      const report = SafetyChecker.checkSchedule(schedule)
      const [p1, p2] = report.history.sections
      expect(p2!.fence!).toBeGreaterThan(p1!.fence!)
      // p1's section overlaps p2's on the true timeline...
      expect(report.anomalies.some((a) => a.invariant === "mutualExclusion")).toBe(true)
      // ...but the write it makes on waking carries the old fence and is rejected.
      const stale = report.history.writes.filter((w) => !w.accepted)
      expect(stale.length).toBeGreaterThan(0)
      expect(stale.every((w) => w.section === 0 && w.at >= 5_500)).toBe(true)
      expect(report.violations).toEqual([])
    }))

  it.effect("runs replay exactly from the schedule", () =>
    Effect.sync(() => {
      for (const seed of [3, 17, 42]) {
        const schedule = Simulation.generate(seed)
        expect(Simulation.generate(seed)).toEqual(schedule)
        const first = Simulation.run(schedule)
        const second = Simulation.run(schedule)
        expect(second.sections).toEqual(first.sections)
        expect(second.writes).toEqual(first.writes)
        expect(second.faults).toEqual(first.faults)
      }
    }))

  it.effect("shrinking reduces an overlapping schedule to a few events that still overlap", () =>
    Effect.sync(() => {
      const overlapping = (schedule: Simulation.Schedule) =>
        SafetyChecker.checkSchedule(schedule).anomalies.some((a) => a.invariant === "mutualExclusion")
      let seed = 1
      while (!overlapping(Simulation.generate(seed, { mode: "skew" }))) seed++
      const original = Simulation.generate(seed, { mode: "skew" })
      const shrunk = SafetyChecker.shrink(original, overlapping)
      expect(overlapping(shrunk)).toBe(true)
      expect(shrunk.sections.length).toBeLessThanOrEqual(2)
      expect(shrunk.faults.length).toBeLessThanOrEqual(original.faults.length)
      expect(SafetyChecker.formatHistory(Simulation.run(shrunk))).toContain("enters")
    }))

  it.effect("the checker flags overlapping sections and lower fences in a hand-made history", () =>
    Effect.sync(() => {
      const schedule = Simulation.generate(1, { mode: "safe" })
      const section = (index: number, fence: number, start: number, end: number): Simulation.SectionRecord => ({
        index,
        process: `p${index}`,
        name: "a",
        api: "withLock",
        fence,
        start,
        end,
        outcome: "completed",
        finishedAt: end,
        leaseStatus: "Lost(expired)",
        detail: undefined
      })
      const report = SafetyChecker.check({
        schedule,
        sections: [section(0, 10, 0, 500), section(1, 9, 400, 900)],
        writes: [
          { at: 0, name: "a", fence: 10, section: 0, accepted: true, highestBefore: undefined },
          { at: 400, name: "a", fence: 9, section: 1, accepted: true, highestBefore: 10 }
        ],
        faults: [],
        endedAt: 900,
        finished: true
      })
      const broken = new Set(report.violations.map((v) => v.invariant))
      expect(broken).toEqual(new Set(["mutualExclusion", "fenceOrder", "fencedResource"]))
      // A lost holder still running when a newer fence started: interrupted too late.
      const late = SafetyChecker.check({
        schedule,
        sections: [section(0, 10, 0, 500), section(1, 11, 400, 900)],
        writes: [],
        faults: [],
        endedAt: 900,
        finished: true
      })
      expect(new Set(late.violations.map((v) => v.invariant))).toEqual(
        new Set(["mutualExclusion", "interruptBeforeTakeover"])
      )
    }))
})
