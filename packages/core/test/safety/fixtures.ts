// Hand-made schedules and histories, small enough to read in a test.
import type * as History from "../../src/simulation/History.js"
import * as Schedule from "../../src/simulation/Schedule.js"
import * as SectionRecord from "../../src/simulation/SectionRecord.js"
import type * as WriteRecord from "../../src/simulation/WriteRecord.js"

export const schedule = (overrides: Partial<Schedule.Schedule> = {}): Schedule.Schedule => ({
  seed: 1,
  mode: "safe",
  takeover: "absolute",
  timings: Schedule.defaultTimings,
  processes: [{ id: "p1", offsetMs: 0, pauses: [] }, { id: "p2", offsetMs: 0, pauses: [] }],
  sections: [],
  faults: [],
  horizonMs: 15_000,
  ...overrides
})

/** A use that acquired with `fence` and ran from `start` to `end`, completed. */
export const section = (
  index: number,
  fields: Partial<SectionRecord.SectionRecord> & { readonly process?: string; readonly name?: string } = {}
): SectionRecord.SectionRecord => {
  const { name = "a", process = `p${index + 1}`, ...rest } = fields
  return Object.assign(SectionRecord.make(index, process, name, "withLock"), {
    outcome: "completed" as const,
    ...rest
  })
}

export const write = (fields: Partial<WriteRecord.WriteRecord> & { readonly at: number; readonly fence: number }) => ({
  name: "a",
  section: 0,
  accepted: true,
  highestBefore: undefined,
  ...fields
})

export const history = (overrides: Partial<History.History> = {}): History.History => ({
  schedule: schedule(),
  sections: [],
  writes: [],
  faults: [],
  endedAt: 20_000,
  finished: true,
  ...overrides
})
