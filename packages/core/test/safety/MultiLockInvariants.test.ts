import { describe, expect, it } from "vitest"
import * as MultiLockInvariants from "../../src/safety/MultiLockInvariants.js"
import type * as Schedule from "../../src/simulation/Schedule.js"
import * as SectionRecord from "../../src/simulation/SectionRecord.js"
import { history, schedule, section } from "./fixtures.js"

/** Two planned sections, each taking "a" and "b" together, waiting for ever. */
const pair: ReadonlyArray<Schedule.SectionSpec> = [
  { process: "p1", name: "a", at: 0, steps: 1, stepMs: 10, wait: "forever", api: "withLock", together: ["b"] },
  { process: "p2", name: "b", at: 0, steps: 1, stepMs: 10, wait: "forever", api: "withLock", together: ["a"] }
]

/** The record of the `k`th lock taken together by section `index` (from 0), of the two of `pair`. */
const other = (index: number, name: string, fields: Partial<SectionRecord.SectionRecord> = {}) =>
  section(SectionRecord.togetherIndexOf(0, index, pair.length), { process: `p${index + 1}`, name, ...fields })

describe("MultiLockInvariants", () => {
  it("a section that ran holding all of its locks, or none, breaks nothing; one holding some is caught", () => {
    const all = history({
      schedule: schedule({ sections: pair }),
      sections: [section(0, { start: 5 }), other(0, "b", { start: 5 }), section(1), other(1, "a")]
    })
    expect(MultiLockInvariants.allOrNone(all)).toEqual([])
    const some = history({
      schedule: schedule({ sections: pair }),
      sections: [section(0, { start: 5 }), other(0, "b")]
    })
    expect(MultiLockInvariants.allOrNone(some)).toEqual([
      { invariant: "allOrNone", message: "p1#0 ran its section holding a without b" }
    ])
  })

  it("sections that each hold what the other waits for, at the horizon, are a deadlock", () => {
    const waiting = [section(0, { finishedAt: 15_000, outcome: "interrupted" }), section(1, { finishedAt: 15_000 })]
    const deadlocked = history({
      schedule: schedule({ sections: pair }),
      sections: waiting,
      holdersAtHorizon: { a: "p1#0", b: "p2#1" },
      targetsAtHorizon: { "p1#0": "b", "p2#1": "a" }
    })
    expect(MultiLockInvariants.noDeadlock(deadlocked).map((f) => f.message)).toEqual([
      `sections wait on each other for ever: p1#0 waits for "b", held by p2#1 waits for "a", held by p1#0`
    ])
    // One of them waits for a free lock (a call of it hung, say): no cycle.
    const stuck = history({
      schedule: schedule({ sections: pair }),
      sections: waiting,
      holdersAtHorizon: { a: "p1#0", b: undefined },
      targetsAtHorizon: { "p1#0": "b", "p2#1": "a" }
    })
    expect(MultiLockInvariants.noDeadlock(stuck)).toEqual([])
  })
})
