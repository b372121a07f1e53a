/**
 * The safety checker's `late` class: writes the network holds after their senders gave up (a timeout, the transport's
 * retry, an interruption) and delivers later, out of order with the senders' later writes, on locks and semaphores.
 * Every invariant holds, and the class does what it is for: held writes land after newer writes of their sender,
 * after give-backs, after acquisitions and releases.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as SafetyChecker from "../src/SafetyChecker.js"
import * as Simulation from "../src/Simulation.js"

describe("SafetyChecker: the late class", () => {
  it.effect("seeded late schedules: no violation, and held writes land behind what their senders did since", () =>
    Effect.sync(() => {
      const summary = SafetyChecker.runMany({ from: 1, count: 60, mode: "late", shrink: false })
      expect(summary.failures.map((failure) => failure.seed)).toEqual([])
      const late = summary.byClass.late!
      expect(late.schedules).toBe(60)
      expect(late.sections).toBeGreaterThan(200)
      for (const tally of [late.lateOnLocks, late.lateOnSemaphores]) {
        expect(tally.delivered).toBeGreaterThan(20)
        expect(tally.afterLaterWrite).toBeGreaterThan(10)
        expect(tally.afterGiveBack).toBeGreaterThan(0)
        expect(tally.afterAcquired).toBeGreaterThan(5)
        expect(tally.afterRelease).toBeGreaterThan(5)
      }
    }))

  it.effect("a late schedule replays exactly", () =>
    Effect.sync(() => {
      const schedule = Simulation.generate(12, { mode: "late" })
      expect(Simulation.generate(12, { mode: "late" })).toEqual(schedule)
      const first = Simulation.run(schedule)
      const second = Simulation.run(schedule)
      expect(second.sections).toEqual(first.sections)
      expect(second.writes).toEqual(first.writes)
    }))
})
