import { describe, expect, it } from "@effect/vitest"
import { LockStore } from "@leasehold/lock"
import { Effect } from "effect"
import { main } from "../src/internal/safety/checkSafetyMain.js"
import * as SafetyChecker from "../src/SafetyChecker.js"
import * as Simulation from "../src/Simulation.js"

const schedule = Simulation.generate(1, { mode: "semaphore" })

/** A section that ran on `permits` of semaphore "a" (limit `limit`), called at `requestedAt`. */
const holder = (
  index: number,
  fields: { fence: number; start: number; end: number; permits: number; limit?: number; requestedAt?: number }
): Simulation.SectionRecord => ({
  index,
  process: `p${index}`,
  name: "a",
  api: "withLock",
  outcome: "completed",
  finishedAt: fields.end,
  leaseStatus: undefined,
  detail: undefined,
  limit: 3,
  requestedAt: fields.start,
  ...fields
})

const lockSection = (index: number, fence: number, start: number, end: number): Simulation.SectionRecord => ({
  index,
  process: `p${index}`,
  name: "a",
  api: "withLock",
  fence,
  start,
  end,
  outcome: "completed",
  finishedAt: end,
  leaseStatus: undefined,
  detail: undefined
})

const permitWrite = (at: number, section: number, fence: number, permits: number): Simulation.WriteRecord => ({
  at,
  name: "a",
  fence,
  section,
  accepted: true,
  highestBefore: undefined,
  permits
})

const checked = (
  sections: ReadonlyArray<Simulation.SectionRecord>,
  writes: ReadonlyArray<Simulation.WriteRecord> = []
) => SafetyChecker.check({ schedule, sections, writes, faults: [], endedAt: 10_000, finished: true })

const broken = (report: SafetyChecker.Report) => new Set(report.violations.map((v) => v.invariant))

/** A memory store that lets one permit more than asked be held: every acquire sees a limit one above its own. */
const leakyStore = (): LockStore.LockStore => {
  const store = LockStore.makeMemory()
  return { ...store, tryAcquirePermits: (request) => store.tryAcquirePermits({ ...request, limit: request.limit + 1 }) }
}

const twoProcesses = (takeover: Simulation.Schedule["takeover"] = "absolute") => ({
  seed: 1,
  mode: "semaphore" as const,
  takeover,
  timings: Simulation.defaultTimings,
  horizonMs: 15_000,
  faults: [],
  processes: [{ id: "p1", offsetMs: 0, pauses: [] }, { id: "p2", offsetMs: 0, pauses: [] }]
})

/** Two sections that want the one permit of "a" at once. */
const contended = (api: Simulation.Api): ReadonlyArray<Simulation.SectionSpec> => [
  { process: "p1", name: "a", at: 0, steps: 4, stepMs: 300, wait: "forever", api, semaphore: { limit: 1, permits: 1 } },
  {
    process: "p2",
    name: "a",
    at: 100,
    steps: 2,
    stepMs: 300,
    wait: "forever",
    api,
    semaphore: { limit: 1, permits: 1 }
  }
]

const permitLimitBroken = (store?: () => LockStore.LockStore) => (s: Simulation.Schedule) =>
  SafetyChecker.check(Simulation.run(s, store === undefined ? {} : { store: store() })).violations.some((v) =>
    v.invariant === "permitLimit"
  )

describe("SafetyChecker on semaphores", () => {
  it.effect("permitLimit: more permits running at once than the limit is reported, up to the limit is not", () =>
    Effect.sync(() => {
      const a = holder(0, { fence: 10, start: 0, end: 1_000, permits: 2 })
      const b = holder(1, { fence: 11, start: 500, end: 1_500, permits: 1 })
      expect(checked([a, b]).violations).toEqual([])
      const c = holder(2, { fence: 12, start: 900, end: 1_200, permits: 1 })
      const over = checked([a, b, c])
      expect(broken(over)).toEqual(new Set(["permitLimit"]))
      expect(over.violations[0]!.message).toContain("4 permits held at 900")
      // A section that ends at an instant no longer runs at it, as for a lock.
      expect(checked([a, b, holder(2, { fence: 12, start: 1_000, end: 1_200, permits: 1 })]).violations).toEqual([])
      // Sections that start at the same instant run together.
      const together = [0, 1].map((i) => holder(i, { fence: 10 + i, start: 0, end: 100, permits: 2 }))
      expect(broken(checked(together))).toEqual(new Set(["permitLimit"]))
    }))

  it.effect("permitLimit: a write after the section ended still counts, as for a lock", () =>
    Effect.sync(() => {
      const a = holder(0, { fence: 10, start: 0, end: 1_000, permits: 2 })
      const b = holder(1, { fence: 11, start: 1_100, end: 1_500, permits: 2 })
      const writes = [permitWrite(0, 0, 10, 2), permitWrite(1_100, 1, 11, 2)]
      expect(checked([a, b], writes).violations).toEqual([])
      expect(broken(checked([a, b], [...writes, permitWrite(1_200, 0, 10, 2)]))).toEqual(new Set(["permitLimit"]))
    }))

  it.effect("permitFences: a fence shared, or not above that of an acquisition that completed earlier, is reported", () =>
    Effect.sync(() => {
      const a = holder(0, { fence: 10, start: 100, end: 1_000, permits: 1 })
      // Called before a had acquired: the store may have served it first, whatever the order the sections started.
      const concurrent = holder(1, { fence: 9, start: 300, end: 800, permits: 1, requestedAt: 50 })
      expect(checked([a, concurrent]).violations).toEqual([])
      const later = holder(1, { fence: 9, start: 300, end: 800, permits: 1, requestedAt: 200 })
      expect(broken(checked([a, later]))).toEqual(new Set(["permitFences"]))
      const same = holder(1, { fence: 10, start: 300, end: 800, permits: 1, requestedAt: 50 })
      expect(broken(checked([a, same]))).toEqual(new Set(["permitFences"]))
      // Fences of two semaphores, or of a semaphore and a lock of its name, are unrelated.
      expect(checked([a, { ...later, name: "b" }, lockSection(2, 9, 300, 400)]).violations).toEqual([])
    }))

  it.effect("the lock's invariants are not applied to holders of permits, nor between a lock and a semaphore", () =>
    Effect.sync(() => {
      // Two holders side by side, the later fence starting first, writing their fences in any order.
      const a = holder(0, { fence: 11, start: 0, end: 1_000, permits: 1 })
      const b = holder(1, { fence: 10, start: 100, end: 900, permits: 1, requestedAt: 0 })
      const writes = [permitWrite(0, 0, 11, 1), permitWrite(100, 1, 10, 1), permitWrite(500, 0, 11, 1)]
      // The lock of the same name, held meanwhile with a lower fence.
      const lock = lockSection(2, 5, 200, 300)
      const lockWrite: Simulation.WriteRecord = {
        at: 200,
        name: "a",
        fence: 5,
        section: 2,
        accepted: true,
        highestBefore: undefined
      }
      expect(checked([a, b, lock], [...writes, lockWrite]).violations).toEqual([])
      // Locks keep theirs.
      expect(broken(checked([a, b, lock, lockSection(3, 6, 250, 400)]))).toEqual(new Set(["mutualExclusion"]))
    }))

  it.effect("a store that lets one permit too many be held is caught, in a hand-made schedule and in seeded ones", () =>
    Effect.sync(() => {
      for (const api of ["withLock", "acquire"] as const) {
        const s: Simulation.Schedule = { ...twoProcesses(), sections: contended(api) }
        const honest = SafetyChecker.checkSchedule(s)
        expect(honest.violations).toEqual([])
        const [first, second] = honest.history.sections
        expect(second!.start).toBeGreaterThanOrEqual(first!.end!)
        const leaky = SafetyChecker.check(Simulation.run(s, { store: leakyStore() }))
        expect(broken(leaky)).toEqual(new Set(["permitLimit"]))
      }
      let caught = 0
      for (let seed = 1; seed <= 20; seed++) {
        const s = Simulation.generate(seed, { mode: "semaphore" })
        if (permitLimitBroken(leakyStore)(s)) caught++
      }
      expect(caught).toBeGreaterThan(5)
    }))

  it.effect("shrinking a leaky store's violation keeps the few holders that overfill the semaphore and shows them", () =>
    Effect.sync(() => {
      const fails = permitLimitBroken(leakyStore)
      let seed = 1
      while (!fails(Simulation.generate(seed, { mode: "semaphore" }))) seed++
      const original = Simulation.generate(seed, { mode: "semaphore" })
      const shrunk = SafetyChecker.shrink(original, fails)
      expect(fails(shrunk)).toBe(true)
      // One more permit than the limit takes at least two holders; with one permit each, one more than the limit.
      expect(shrunk.sections.length).toBeGreaterThanOrEqual(2)
      expect(shrunk.sections.length).toBeLessThan(original.sections.length)
      expect(shrunk.sections.length).toBeLessThanOrEqual(
        1 + Math.max(...shrunk.sections.map((x) => x.semaphore!.limit))
      )
      const text = SafetyChecker.formatHistory(Simulation.run(shrunk, { store: leakyStore() }))
      expect(text).toContain(`enters semaphore "`)
      expect(text).toMatch(/via Semaphore\.(withPermits|acquire), \d of \d permits/)
    }))

  it.effect("a holder whose renews hang and whose release fails is interrupted before another takes its permits", () =>
    Effect.sync(() => {
      for (const takeover of ["absolute", "observed"] as const) {
        for (const api of ["withLock", "acquire"] as const) {
          const [first, second] = contended(api)
          const report = SafetyChecker.checkSchedule({
            ...twoProcesses(takeover),
            sections: [{ ...first!, steps: 8, stepMs: 500 }, second!],
            faults: [
              { process: "p1", operation: "renewPermits", nth: 0, fault: { kind: "hang", ms: 10_000 } },
              ...[0, 1, 2].map((nth) => ({
                process: "p1",
                operation: "releasePermits" as const,
                nth,
                fault: { kind: "fatal" as const }
              }))
            ]
          })
          const [p1, p2] = report.history.sections
          expect(p1!.outcome).toBe(api === "withLock" ? "lost" : "interrupted")
          expect(p2!.tookOver).toBe(1)
          expect(p2!.fence).toBeGreaterThan(p1!.fence!)
          expect(p2!.start).toBeGreaterThan(p1!.end!)
          expect(report.violations).toEqual([])
        }
      }
    }))

  it.effect("an acquire answered after its lease, whose give-back fails, does not run on the entry it left", () =>
    Effect.sync(() => {
      for (const takeover of ["absolute", "observed"] as const) {
        const [first, second] = contended("withLock")
        const report = SafetyChecker.checkSchedule({
          ...twoProcesses(takeover),
          sections: [first!, { ...second!, at: 2_000 }],
          faults: [
            // The creating write applies, and its answer comes after the lease it set is over.
            { process: "p1", operation: "tryAcquirePermits", nth: 1, fault: { kind: "lostTimeout", ms: 2_500 } },
            { process: "p1", operation: "releasePermits", nth: 0, fault: { kind: "fatal" } }
          ]
        })
        expect(report.violations).toEqual([])
        const [p1, p2] = report.history.sections
        expect(p2!.outcome).toBe("completed")
        expect(p1!.start === undefined || p1!.start >= p2!.end! || p1!.end! <= p2!.start!).toBe(true)
      }
    }))

  it.effect("a holder paused past its lease overfills the semaphore on waking: beyond the assumptions, an anomaly", () =>
    Effect.sync(() => {
      for (const api of ["withLock", "acquire"] as const) {
        const [first, second] = contended(api)
        const report = SafetyChecker.checkSchedule({
          ...twoProcesses(),
          mode: "longPause",
          // p1 stops just after its heartbeat, past its lease; its next step wakes before its keeper does.
          processes: [{ id: "p1", offsetMs: 0, pauses: [{ at: 650, ms: 5_000 }] }, {
            id: "p2",
            offsetMs: 0,
            pauses: []
          }],
          sections: [
            { ...first!, steps: 2, stepMs: 400, semaphore: { limit: 2, permits: 2 } },
            { ...second!, at: 1_000, steps: 6, stepMs: 500, semaphore: { limit: 2, permits: 1 } }
          ]
        })
        const [p1, p2] = report.history.sections
        expect(p2!.tookOver).toBe(2)
        expect(report.history.writes.some((w) => w.section === 0 && w.at > p2!.start!)).toBe(true)
        expect(report.violations).toEqual([])
        expect(report.anomalies.map((a) => a.invariant)).toEqual(["permitLimit"])
        expect(p1!.fence).toBeLessThan(p2!.fence!)
      }
    }))

  it.effect("seeded semaphore schedules: no violation; semaphores fill, holders share them and are taken over", () =>
    Effect.sync(() => {
      const summary = SafetyChecker.runMany({ from: 1, count: 25, mode: "semaphore", shrink: false })
      expect(summary.failures.map((f) => f.violations)).toEqual([])
      const c = summary.byClass.semaphore!
      expect(c.permitSections).toBeGreaterThan(100)
      expect(c.permitTakeovers).toBeGreaterThan(5)
      // Some sections keep their lock, next to the semaphore of their name.
      expect(c.sections).toBeGreaterThan(c.permitSections)
      let shared = 0
      let full = 0
      for (let seed = 1; seed <= 25; seed++) {
        const sections = Simulation.run(Simulation.generate(seed, { mode: "semaphore" })).sections
        const held = sections.filter((s) => s.permits !== undefined && s.start !== undefined)
        for (const s of held) {
          const running = held.filter((x) => x.name === s.name && x.start! <= s.start! && s.start! < x.end!)
          if (running.length > 1) shared++
          if (running.reduce((n, x) => n + x.permits!, 0) === s.limit) full++
        }
      }
      expect(shared).toBeGreaterThan(20)
      expect(full).toBeGreaterThan(20)
    }))

  it.effect("semaphore schedules replay exactly, promise every invariant, and check:safety runs them", () =>
    Effect.sync(() => {
      const s = Simulation.generate(7, { mode: "semaphore" })
      expect(Simulation.generate(7, { mode: "semaphore" })).toEqual(s)
      const first = Simulation.run(s)
      expect(Simulation.run(s).sections).toEqual(first.sections)
      expect(Simulation.run(s).writes).toEqual(first.writes)
      expect(new Set(SafetyChecker.expectedInvariants(s))).toEqual(new Set(SafetyChecker.invariants))
      const lines: Array<string> = []
      expect(main(["--schedules", "3", "--mode", "semaphore", "--no-shrink"], (line) => lines.push(line))).toBe(0)
      expect(lines.some((line) => line.startsWith("  semaphore: 3 schedules"))).toBe(true)
    }))
})
