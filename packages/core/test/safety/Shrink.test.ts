import { describe, expect, it } from "vitest"
import * as Shrink from "../../src/safety/Shrink.js"
import type * as Schedule from "../../src/simulation/Schedule.js"
import { schedule } from "./fixtures.js"

const spec = (process: string, at: number, extra: Partial<Schedule.SectionSpec> = {}): Schedule.SectionSpec => ({
  process,
  name: "a",
  at,
  steps: 4,
  stepMs: 100,
  wait: "forever",
  api: "acquire",
  ...extra
})

const failing = schedule({
  processes: [
    { id: "p1", offsetMs: 300, pauses: [{ at: 10, ms: 50 }] },
    { id: "p2", offsetMs: -200, pauses: [], clockSteps: [{ at: 100, kind: "jump", ms: 5_000 }] },
    { id: "p3", offsetMs: 0, pauses: [] }
  ],
  sections: [
    spec("p1", 0, { child: { afterMs: 10, nested: true, steps: 3, stepMs: 50 } }),
    spec("p2", 100, { semaphore: { limit: 3, permits: 2 } }),
    spec("p1", 200, { handOff: { afterSteps: 1, to: "p2", delayMs: 10 }, updates: { timeoutMs: 20 } })
  ],
  faults: [
    { process: "p3", operation: "renew", nth: 0, fault: { kind: "fatal" } },
    { process: "p1", operation: "renew", nth: 1, fault: { kind: "hang", ms: 10 } }
  ],
  steals: [{ at: 50, name: "a" }]
})

describe("Shrink.shrink", () => {
  it("drops everything the failure does not need and shortens what is left", () => {
    // Fails while the section at 200 is still planned.
    const stillFails = (s: Schedule.Schedule) => s.sections.some((x) => x.at === 200)
    const shrunk = Shrink.shrink(failing, stillFails)
    expect(shrunk.sections).toEqual([spec("p1", 200, { steps: 1 })])
    expect(shrunk.faults).toEqual([])
    expect(shrunk.steals).toEqual([])
    expect(shrunk.processes).toEqual([{ id: "p1", offsetMs: 0, pauses: [] }])
  })

  it("keeps the process a hand-off goes to, and one permit where a section took more", () => {
    const stillFails = (s: Schedule.Schedule) =>
      s.sections.some((x) => x.handOff !== undefined) && s.sections.some((x) => x.semaphore !== undefined)
    const shrunk = Shrink.shrink(failing, stillFails)
    expect(shrunk.processes.map((p) => p.id)).toEqual(["p1", "p2"])
    expect(shrunk.sections.map((x) => x.semaphore?.permits)).toEqual([1, undefined])
  })

  it("tries no more than maxRuns candidates", () => {
    let runs = 0
    const shrunk = Shrink.shrink(failing, () => {
      runs++
      return false
    }, 3)
    expect(runs).toBe(3)
    expect(shrunk).toBe(failing)
  })
})
