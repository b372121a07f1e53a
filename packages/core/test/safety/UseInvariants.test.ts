import { describe, expect, it } from "vitest"
import * as UseInvariants from "../../src/safety/UseInvariants.js"
import type * as Schedule from "../../src/simulation/Schedule.js"
import * as SectionRecord from "../../src/simulation/SectionRecord.js"
import { history, schedule, section, write } from "./fixtures.js"

describe("UseInvariants", () => {
  it("a use that died or never finished is a defect", () => {
    const findings = UseInvariants.noDefects(history({
      sections: [section(0, { outcome: "defect", detail: "boom" }), section(1, { outcome: "unfinished" })]
    }))
    expect(findings).toEqual([
      { invariant: "noDefects", message: "p1#0 (fence undefined) died: boom" },
      { invariant: "noDefects", message: "p2#1 (fence undefined) never finished (simulation ran to its cap)" }
    ])
  })

  it("one write after a loss ends the step in progress; a second one ran on a lost lease", () => {
    const lost = section(0, { fence: 1, start: 0, end: 500, lostAt: 100, leaseStatus: "Lost(expired)" })
    const oneAfter = history({ sections: [lost], writes: [write({ at: 50, fence: 1 }), write({ at: 150, fence: 1 })] })
    expect(UseInvariants.stopsWhenLost(oneAfter)).toEqual([])
    const twoAfter = history({
      sections: [lost],
      writes: [write({ at: 150, fence: 1 }), write({ at: 250, fence: 1 }), write({ at: 350, fence: 1, by: 2 })]
    })
    expect(UseInvariants.stopsWhenLost(twoAfter)).toEqual([{
      invariant: "stopsWhenLost",
      message: `"a": p1#0 (fence 1) knew at 100 that the lease was lost (Lost(expired)) but wrote 1 more time(s) ` +
        "after the step in progress, the last at 250"
    }])
  })

  it("a nested use that never ran is no progress, unless its borrowed lease was released under it", () => {
    const stuck = section(1, { parent: 0, outerEnteredAt: 40, outcome: "interrupted" })
    expect(UseInvariants.reentryProgress(history({ sections: [stuck] }))[0]!.message).toBe(
      `"a": p2#1 (child of #0, fence undefined) held the lock from 40 but its nested use of the same name never ran ` +
        "(interrupted)"
    )
    const cutOff = section(1, { parent: 0, outerEnteredAt: 40, outcome: "lost", lostReason: "released" })
    expect(UseInvariants.reentryProgress(history({ sections: [cutOff] }))).toEqual([])
  })

  it("a use called after a section ended must not fail with that section's loss", () => {
    const ended = section(0, { fence: 3, start: 0, end: 100 })
    const late = section(1, { requestedAt: 150, outcome: "lost", lostFence: 3, detail: "lost\nmore" })
    expect(UseInvariants.reentryProgress(history({ sections: [ended, late] }))).toEqual([{
      invariant: "reentryProgress",
      message: `"a": p2#1 (fence undefined), called at 150, failed with the loss of p1#0 (fence 3), whose section ` +
        "had ended at 100 (lost: lost)"
    }])
    const early = section(1, { requestedAt: 50, outcome: "lost", lostFence: 3 })
    expect(UseInvariants.reentryProgress(history({ sections: [ended, early] }))).toEqual([])
  })

  it("a bystander, which relies on no lease, runs to its end or to the horizon", () => {
    const bystander = (fields: Parameters<typeof section>[1]) =>
      section(SectionRecord.indexOf("bystander", 0, 1), { api: "bystander", ...fields })
    const sections = [section(0)]
    const ran = history({ schedule: schedule({ sections: [] }), sections: [...sections, bystander({})] })
    expect(UseInvariants.bystandersRun(ran)).toEqual([])
    const atHorizon = bystander({ outcome: "interrupted", finishedAt: 15_000 })
    expect(UseInvariants.bystandersRun(history({ sections: [...sections, atHorizon] }))).toEqual([])
    const stopped = bystander({ outcome: "interrupted", finishedAt: 2_500, detail: "All fibers interrupted\nmore" })
    const spec = {
      process: "p1",
      name: "a",
      at: 0,
      steps: 1,
      stepMs: 10,
      wait: "forever" as const,
      api: "acquire" as const
    }
    expect(UseInvariants.bystandersRun(history({ schedule: schedule({ sections: [spec] }), sections: [stopped] })))
      .toEqual([{
        invariant: "bystandersRun",
        message: `"a": the region around p4's detached worker #0 relied on no lease, but ended interrupted at 2500: ` +
          "All fibers interrupted"
      }])
  })

  it("a use in a Lock.scoped region whose lease was lost ends with LockLost, not interrupted", () => {
    const spec = (region?: Schedule.RegionSpec) => ({
      process: "p1",
      name: "a",
      at: 0,
      steps: 1,
      stepMs: 10,
      wait: "forever" as const,
      api: "acquireInTimeout" as const,
      ...(region === undefined ? {} : { region })
    })
    const interrupted = section(0, {
      fence: 1,
      lostAt: 2_700,
      leaseStatus: "Lost(expired)",
      outcome: "interrupted",
      finishedAt: 2_700
    })
    const inRegion = history({ schedule: schedule({ sections: [spec()] }), sections: [interrupted] })
    expect(UseInvariants.regionsFailWithLoss(inRegion)).toEqual([{
      invariant: "regionsFailWithLoss",
      message: `"a": p1#0 (fence 1) ran in Lock.scoped and its lease was lost at 2700 (Lost(expired)), but it ended ` +
        "interrupted at 2700, not with LockLost"
    }])
    const failed = { ...interrupted, outcome: "lost" as const }
    expect(UseInvariants.regionsFailWithLoss(history({ schedule: inRegion.schedule, sections: [failed] }))).toEqual([])
    const atHorizon = { ...interrupted, finishedAt: 15_000 }
    expect(UseInvariants.regionsFailWithLoss(history({ schedule: inRegion.schedule, sections: [atHorizon] })))
      .toEqual([])
    const sibling = schedule({
      sections: [spec({ kind: "sibling", afterMs: 0, waitMs: 0, steps: 1, stepMs: 10 })]
    })
    expect(UseInvariants.regionsFailWithLoss(history({ schedule: sibling, sections: [interrupted] }))).toEqual([])
    const plain = schedule({ sections: [{ ...spec(), api: "acquire" as const }] })
    expect(UseInvariants.regionsFailWithLoss(history({ schedule: plain, sections: [interrupted] }))).toEqual([])
  })

  it("a bad option must be refused with a config error, and good options never", () => {
    const spec = {
      process: "p1",
      name: "a",
      at: 0,
      steps: 1,
      stepMs: 10,
      wait: "forever" as const,
      api: "withLock" as const,
      badOption: "waitNaN" as const
    }
    const planned = schedule({ mode: "badOptions", sections: [spec, { ...spec, badOption: undefined }] })
    const ran = UseInvariants.badOptionsRefused(history({
      schedule: planned,
      sections: [section(0, { fence: 1, start: 5 }), section(1, { outcome: "configError", detail: "no" })]
    }))
    expect(ran).toEqual([
      {
        invariant: "badOptionsRefused",
        message: `"a": p1#0 (fence 1) had wait: NaN but ran its section from 5 (completed)`
      },
      { invariant: "badOptionsRefused", message: "p2#1 (fence undefined) was refused valid options: no" }
    ])
    const refused = UseInvariants.badOptionsRefused(history({
      schedule: planned,
      sections: [section(0, { outcome: "configError" }), section(1, { fence: 2, start: 5 })]
    }))
    expect(refused).toEqual([])
  })
})
