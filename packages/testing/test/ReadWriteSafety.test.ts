import { describe, expect, it } from "@effect/vitest"
import { LockStore, ReadWriteLock } from "@leasehold/lock"
import { Effect } from "effect"
import * as SafetyChecker from "../src/SafetyChecker.js"
import * as Simulation from "../src/Simulation.js"

/** A memory store that lets a writer in beside others: its acquire asks for one permit instead of all of them. */
const oneWriterPermitStore = (): LockStore.LockStore => {
  const store = LockStore.makeMemory()
  return {
    ...store,
    tryAcquirePermits: (request) =>
      store.tryAcquirePermits(request.permits === ReadWriteLock.maxReaders ? { ...request, permits: 1 } : request)
  }
}

const twoProcesses = (sections: ReadonlyArray<Simulation.SectionSpec>): Simulation.Schedule => ({
  seed: 1,
  mode: "readWrite",
  takeover: "absolute",
  timings: Simulation.defaultTimings,
  horizonMs: 15_000,
  faults: [],
  processes: [{ id: "p1", offsetMs: 0, pauses: [] }, { id: "p2", offsetMs: 0, pauses: [] }],
  sections
})

/** A reader of "a" from `at`, then a writer of it, and another reader, each waiting for as long as it takes. */
const queued = (api: Simulation.Api): ReadonlyArray<Simulation.SectionSpec> => [
  { process: "p1", name: "a", at: 0, steps: 3, stepMs: 300, wait: "forever", api, readWrite: "read" },
  { process: "p2", name: "a", at: 100, steps: 2, stepMs: 300, wait: "forever", api, readWrite: "write" },
  { process: "p1", name: "a", at: 200, steps: 2, stepMs: 300, wait: "forever", api, readWrite: "read" }
]

const excludes = (store?: () => LockStore.LockStore) => (s: Simulation.Schedule) =>
  !SafetyChecker.check(Simulation.run(s, store === undefined ? {} : { store: store() })).violations.some((v) =>
    v.invariant === "readWriteExclusion"
  )

const broken = (report: SafetyChecker.Report) => new Set(report.violations.map((v) => v.invariant))

describe("SafetyChecker on read/write locks", () => {
  it.effect("a writer waits for the reader before it, and the reader after it for the writer", () =>
    Effect.sync(() => {
      for (const api of ["withLock", "acquire"] as const) {
        const report = SafetyChecker.checkSchedule(twoProcesses(queued(api)))
        expect(report.violations).toEqual([])
        const [reader, writer, next] = report.history.sections
        expect(writer!.start).toBeGreaterThanOrEqual(reader!.end!)
        expect(writer!.fence).toBeGreaterThan(reader!.fence!)
        expect([reader!.mode, writer!.mode, next!.mode]).toEqual(["read", "write", "read"])
        expect(report.history.writes.every((w) => w.accepted && w.mode !== undefined)).toBe(true)
      }
    }))

  it.effect("a store that lets a writer in beside others is caught, in a hand-made schedule and in seeded ones", () =>
    Effect.sync(() => {
      for (const api of ["withLock", "acquire"] as const) {
        const s = twoProcesses(queued(api))
        expect(excludes()(s)).toBe(true)
        expect(broken(SafetyChecker.check(Simulation.run(s, { store: oneWriterPermitStore() })))).toContain(
          "readWriteExclusion"
        )
      }
      let caught = 0
      for (let seed = 1; seed <= 20; seed++) {
        if (!excludes(oneWriterPermitStore)(Simulation.generate(seed, { mode: "readWrite" }))) caught++
      }
      expect(caught).toBeGreaterThan(5)
    }))

  it.effect("shrinking such a violation keeps a writer and the section beside it, and shows their modes", () =>
    Effect.sync(() => {
      const fails = (s: Simulation.Schedule) => !excludes(oneWriterPermitStore)(s)
      let seed = 1
      while (!fails(Simulation.generate(seed, { mode: "readWrite" }))) seed++
      const original = Simulation.generate(seed, { mode: "readWrite" })
      const shrunk = SafetyChecker.shrink(original, fails)
      expect(fails(shrunk)).toBe(true)
      expect(shrunk.sections.length).toBeLessThan(original.sections.length)
      expect(shrunk.sections.some((x) => x.readWrite === "write")).toBe(true)
      const text = SafetyChecker.formatHistory(Simulation.run(shrunk, { store: oneWriterPermitStore() }))
      expect(text).toMatch(/via ReadWriteLock\.(withWriteLock|acquireWrite)/)
      expect(text).toMatch(/enters read\/write lock "\w" with fence \d+ to write/)
      expect(text).toMatch(/writes under the write lock of "\w", fence \d+/)
    }))

  it.effect("seeded schedules of the class: readers and writers run, waiters reserve, nothing breaks", () =>
    Effect.sync(() => {
      const summary = SafetyChecker.runMany({ from: 1, count: 15, mode: "readWrite" })
      expect(summary.failures.map((f) => f.violations)).toEqual([])
      const tally = summary.byClass.readWrite!.readWrite
      expect(tally.readsRan).toBeGreaterThan(0)
      expect(tally.writesRan).toBeGreaterThan(0)
      expect(tally.reservations).toBeGreaterThan(0)
    }))
})
