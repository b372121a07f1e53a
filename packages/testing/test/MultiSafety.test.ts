/**
 * The safety checker's `multi` class with `Lock.withLocks`'s `transaction`: a use that finds its locks free takes them
 * in one store call, one that does not takes them one at a time, and a take held by the network and delivered after
 * its sender gave up lands on all of its locks or none. Every invariant holds, and a store whose take of several is not
 * atomic is caught.
 */
import { describe, expect, it } from "@effect/vitest"
import { LockStore } from "@leasehold/lock"
import { Effect } from "effect"
import * as SafetyChecker from "../src/SafetyChecker.js"
import * as Simulation from "../src/Simulation.js"

const twoProcesses = {
  seed: 1,
  mode: "multi" as const,
  takeover: "observed" as const,
  timings: Simulation.defaultTimings,
  horizonMs: 15_000,
  processes: [{ id: "p1", offsetMs: 0, pauses: [] }, { id: "p2", offsetMs: 0, pauses: [] }]
}

/** A use of "a" and "b" together, first in one store call. */
const both = (process: string, at: number, first: string, second: string): Simulation.SectionSpec => ({
  process,
  name: first,
  together: [second],
  transaction: true,
  at,
  steps: 2,
  stepMs: 300,
  wait: "forever",
  api: "withLock"
})

/** The record of the other lock of planned section `index`, of `count`. */
const otherOf = (history: Simulation.History, index: number, count: number) =>
  history.sections.find((s) => s.index === 4 * count + index)!

/**
 * A memory store whose take of several locks is not atomic: it takes each lock that is free, leaves the others, and
 * answers with what it took as if it had taken them all.
 */
const piecemealStore = (): LockStore.LockStore => {
  const store = LockStore.makeMemory()
  return {
    ...store,
    tryAcquireAll: (request) =>
      Effect.map(Effect.forEach(request.requests, (one) => store.tryAcquire(one)), (answers) => {
        const records = answers.flatMap((answer) => answer._tag === "Acquired" ? [answer.record] : [])
        return records.length === 0 ? { _tag: "Refused" as const } : { _tag: "Acquired" as const, records }
      })
  }
}

describe("SafetyChecker: locks taken together in one store call", () => {
  it.effect("the first use finds both locks free and takes them in one call; the second, refused, one at a time", () =>
    Effect.sync(() => {
      const schedule: Simulation.Schedule = {
        ...twoProcesses,
        faults: [],
        sections: [both("p1", 0, "a", "b"), both("p2", 100, "b", "a")]
      }
      const report = SafetyChecker.checkSchedule(schedule)
      expect(report.violations).toEqual([])
      const { history } = report
      const [first, second] = [0, 1].map((i) => history.sections.find((s) => s.index === i)!)
      expect(first!.takenAtOnce).toBe(true)
      expect(second!.takenAtOnce).toBe(false)
      // The second ran after the first, with a greater fence on each lock.
      expect(second!.start).toBeGreaterThanOrEqual(first!.end!)
      expect(second!.fence).toBeGreaterThan(otherOf(history, 0, 2).fence!)
      expect(otherOf(history, 1, 2).fence).toBeGreaterThan(first!.fence!)
      // The same seedless schedule replays to the same history, and reads as what happened.
      expect(Simulation.run(schedule).sections).toEqual(history.sections)
      const text = SafetyChecker.formatHistory(history)
      expect(text).toContain(`section #0: p1 "a", "b" at 0 via Lock.withLocks with transaction, wait forever`)
      expect(text).toMatch(/p1#0 enters "a" with fence \d+, its locks taken in one store call/)
      expect(text).toMatch(/p2#1 enters "b" with fence \d+, its locks taken one at a time/)
    }))

  it.effect("a take held by the network lands after its sender took the locks one at a time, all or nothing", () =>
    Effect.sync(() => {
      const schedule: Simulation.Schedule = {
        ...twoProcesses,
        sections: [both("p1", 0, "a", "b")],
        faults: [{
          process: "p1",
          operation: "tryAcquireAll",
          nth: 0,
          fault: { kind: "lateTimeout", ms: 3_100, giveUpMs: 100 }
        }]
      }
      const report = SafetyChecker.checkSchedule(schedule)
      expect(report.violations).toEqual([])
      const section = report.history.sections.find((s) => s.index === 0)!
      expect(section.takenAtOnce).toBe(false)
      const [delivery, ...rest] = report.history.deliveries ?? []
      expect(rest).toEqual([])
      expect(delivery).toMatchObject({ name: "a", together: ["b"], sentAt: 0, at: 3_100 })
      expect(delivery!.after).toEqual(expect.arrayContaining(["acquired", "released"]))
      expect(SafetyChecker.formatHistory(report.history)).toContain(
        `p1 tryAcquireAll #0 of "a", "b", sent at 0, delivered late (lateTimeout): ${delivery!.outcome}`
      )
    }))

  it.effect("at the horizon, a lock whose lease ran out holds no one up: only a live holder counts for noDeadlock", () =>
    Effect.sync(() => {
      const long = (process: string, name: string, second: string): Simulation.SectionSpec => ({
        ...both(process, 0, name, second),
        transaction: undefined,
        steps: 30,
        stepMs: 1_000
      })
      // p2's renews hang and its releases fail: it loses its locks, and their records stay with its name.
      const fails = (operation: "renew" | "release", fault: Simulation.Schedule["faults"][number]["fault"]) =>
        [0, 1, 2, 3, 4, 5].map((nth) => ({ process: "p2", operation, nth, fault }))
      const history = Simulation.run({
        ...twoProcesses,
        sections: [long("p1", "a", "b"), long("p2", "c", "d")],
        faults: [...fails("renew", { kind: "hang", ms: 20_000 }), ...fails("release", { kind: "fatal" })]
      })
      // One lock's loss ends the section: that lock's record is lost, the other's interrupted.
      const p2 = [history.sections.find((s) => s.index === 1)!, otherOf(history, 1, 2)]
      expect(p2.map((s) => s.outcome).sort()).toEqual(["interrupted", "lost"])
      expect(history.holdersAtHorizon).toEqual({ a: "p1#0", b: "p1#0", c: undefined, d: undefined })
    }))

  it.effect("seeded multi schedules: no violation; uses take their locks in one call, or one at a time after it", () =>
    Effect.sync(() => {
      const summary = SafetyChecker.runMany({ from: 1, count: 40, mode: "multi", shrink: false })
      expect(summary.failures.map((failure) => failure.seed)).toEqual([])
      const multi = summary.byClass.multi!
      expect(multi.transactions).toBeGreaterThan(multi.together / 3)
      expect(multi.transactionsAtOnce).toBeGreaterThan(10)
      expect(multi.transactionsOneAtATime).toBeGreaterThan(10)
    }))

  it.effect("a store whose take of several locks is not atomic is caught in seeded schedules", () =>
    Effect.sync(() => {
      const broken = Array.from({ length: 30 }, (_, i) => Simulation.generate(i + 1, { mode: "multi" })).map((s) =>
        new Set(SafetyChecker.check(Simulation.run(s, { store: piecemealStore() })).violations.map((v) => v.invariant))
      )
      // A section that ran without one of its locks, beside its holder's, or on a lease it was never given.
      expect(broken.filter((found) => found.size > 0).length).toBeGreaterThan(3)
      expect(broken.some((found) => found.has("allOrNone"))).toBe(true)
      expect(broken.some((found) => found.has("mutualExclusion"))).toBe(true)
    }))
})
