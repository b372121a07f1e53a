import { describe, expect, it } from "vitest"
import * as ReadWriteMode from "../../src/record/ReadWriteMode.js"
import * as CheckSafetyCommand from "../../src/safety/CheckSafetyCommand.js"
import * as Generate from "../../src/simulation/Generate.js"
import type * as History from "../../src/simulation/History.js"
import * as SectionRecord from "../../src/simulation/SectionRecord.js"
import { history, section } from "./fixtures.js"

const clean: History.Run = (schedule) => history({ schedule })
const failing: History.Run = (schedule) =>
  history({ schedule, sections: schedule.sections.map((_, i) => section(i, { outcome: "defect", detail: "boom" })) })

const lines = (argv: ReadonlyArray<string>, run: History.Run) => {
  const printed: Array<string> = []
  const code = CheckSafetyCommand.main(argv, (line) => printed.push(line), run)
  return { code, text: printed.join("\n") }
}

describe("CheckSafetyCommand.parse", () => {
  it("reads a batch with its defaults, a replay, and refuses what the usage line does not allow", () => {
    expect(CheckSafetyCommand.parse([])).toEqual({
      _tag: "Batch",
      from: 1,
      schedules: 200,
      mode: undefined,
      shrink: true
    })
    expect(CheckSafetyCommand.parse(["--schedules", "7", "--from", "3", "--mode", "late", "--no-shrink"])).toEqual({
      _tag: "Batch",
      from: 3,
      schedules: 7,
      mode: "late",
      shrink: false
    })
    expect(CheckSafetyCommand.parse(["--seed", "0", "--replay"])).toEqual({
      _tag: "Replay",
      seed: 0,
      mode: undefined,
      replay: true
    })
    for (const bad of [["7"], ["--schedules", "-1"], ["--from", "1.5"], ["--mode", "nope"], ["--seed"]]) {
      expect(CheckSafetyCommand.parse(bad)).toBeUndefined()
    }
  })
})

describe("CheckSafetyCommand.main", () => {
  it("prints the usage line and exits 2 on bad arguments, running nothing", () => {
    let runs = 0
    const { code, text } = lines(["--mode", "nope"], () => {
      runs++
      return history()
    })
    expect(code).toBe(2)
    expect(text).toMatch(/^usage: check:safety \[--schedules N\]/)
    expect(runs).toBe(0)
  })

  it("a batch with nothing broken exits 0 and says so per class", () => {
    const { code, text } = lines(["--schedules", "3", "--mode", "steal"], clean)
    expect(code).toBe(0)
    expect(text).toMatch(/^schedules: 3 \(seeds 1\.\.3\) in \d+ ms$/m)
    expect(text).toContain("\n  steal: 3 schedules; sections 0;")
    expect(text).toContain("\n    violations: 0 schedules (none)")
    expect(text).toContain("\nviolations: 0")
  })

  it("a batch of read/write lock schedules counts the uses of each mode, those that ran, and the reservations", () => {
    // Every planned section runs, one after another, each with a fence above the last.
    const ran: History.Run = (schedule) =>
      history({
        schedule,
        sections: schedule.sections.map((s, i) =>
          section(i, {
            start: 10 * i,
            end: 10 * i + 5,
            fence: i + 1,
            mode: s.readWrite,
            ...(s.readWrite === undefined ? {} : { permits: ReadWriteMode.permitsOf(s.readWrite) })
          })
        ),
        readWrite: { reservations: 2 }
      })
    const { code, text } = lines(["--schedules", "3", "--mode", "readWrite"], ran)
    expect(code).toBe(0)
    const planned = [1, 2, 3].flatMap((seed) => Generate.generate(seed, { mode: "readWrite" }).sections)
    const reads = planned.filter((s) => s.readWrite === "read").length
    const writes = planned.filter((s) => s.readWrite === "write").length
    expect(reads).toBeGreaterThan(0)
    expect(writes).toBeGreaterThan(0)
    expect(text).toContain(
      `; read locks ${reads} (${reads} ran their section), write locks ${writes} (${writes} ran), reservations made 6,`
    )
  })

  it("a batch of multi schedules counts the uses that asked for one store call first, by how they took their locks", () => {
    // Every planned section runs with all of its locks, one after another; those asking for one call first alternate
    // in how they took them.
    let asked = 0
    const ran: History.Run = (schedule) =>
      history({
        schedule,
        sections: schedule.sections.flatMap((s, i) => {
          const times = { start: 10 * i, end: 10 * i + 5, fence: i + 1 }
          return [
            section(i, {
              ...times,
              name: s.name,
              ...(s.transaction === true ? { takenAtOnce: asked++ % 2 === 0 } : {})
            }),
            ...(s.together ?? []).map((name, k) =>
              section(SectionRecord.togetherIndexOf(k, i, schedule.sections.length), { ...times, name })
            )
          ]
        })
      })
    const { code, text } = lines(["--schedules", "3", "--mode", "multi"], ran)
    expect(code).toBe(0)
    const planned = [1, 2, 3].flatMap((seed) => Generate.generate(seed, { mode: "multi" }).sections)
    const together = planned.filter((s) => s.together !== undefined).length
    const transactions = planned.filter((s) => s.transaction === true).length
    expect(transactions).toBeGreaterThan(1)
    expect(text).toContain(
      `; taking locks together ${together} (${together} ran their section), in one store call first ${transactions} ` +
        `(${Math.ceil(transactions / 2)} ran on the locks it took, ${Math.floor(transactions / 2)} on locks taken ` +
        `one at a time)`
    )
  })

  it("a batch with failures exits 1, lists them, shows them shrunk and how to replay them", () => {
    const { code, text } = lines(["--schedules", "2", "--from", "5", "--mode", "safe"], failing)
    expect(code).toBe(1)
    expect(text).toContain("\nviolations: 2\n  by invariant: noDefects 2\n  failing seeds: 5 6\n")
    expect(text).toContain("replay: npm run check:safety -- --seed 5 --mode safe --replay")
    expect(text).toContain("\nshrunk to:\nschedule seed=5 mode=safe")
  })

  it("a replayed seed prints its history and findings; without --replay, the shrunk schedule too", () => {
    const replayed = lines(["--seed", "4", "--replay"], failing)
    expect(replayed.code).toBe(1)
    expect(replayed.text).toMatch(/^schedule seed=4 /)
    expect(replayed.text).toContain("\nVIOLATION noDefects: ")
    expect(replayed.text).not.toContain("shrunk:")
    const shrunk = lines(["--seed", "4"], failing)
    expect(shrunk.text).toContain("\nshrunk:\nschedule seed=4 ")
    const fine = lines(["--seed", "4"], clean)
    expect(fine.code).toBe(0)
    expect(fine.text.endsWith("\nno violations")).toBe(true)
  })
})
