import { describe, expect, it } from "vitest"
import * as Recording from "../../src/simulation/Recording.js"
import * as Timeline from "../../src/simulation/Timeline.js"

describe("Recording", () => {
  it("notes a use's request, critical section, loss and end at the timeline's true time", () => {
    const timeline = new Timeline.Timeline()
    const recording = Recording.make(timeline)
    const record = recording.newSection(2, "p1", "orders", "acquire")
    expect(recording.sections).toEqual([record])
    expect(record).toMatchObject({ index: 2, process: "p1", name: "orders", api: "acquire", outcome: "unfinished" })
    timeline.now = 100
    recording.requested(record)
    timeline.now = 250
    recording.lost(record)
    timeline.now = 260
    recording.lost(record)
    recording.ended(record, { _tag: "Lost", error: { reason: "expired" } })
    timeline.now = 300
    recording.finished(record, { _tag: "Completed" })
    expect(record).toMatchObject({
      requestedAt: 100,
      lostAt: 250,
      end: 260,
      leaseStatus: "Lost(expired)",
      finishedAt: 300,
      outcome: "completed"
    })
  })

  it("records each way a use can end", () => {
    const timeline = new Timeline.Timeline()
    const recording = Recording.make(timeline)
    const [failed, died, interrupted] = [0, 1, 2].map((i) => recording.newSection(i, "p1", "orders", "withLock"))
    recording.finished(failed!, {
      _tag: "Failed",
      error: { _tag: "LockLost", fence: 7, reason: "stolen", message: "lost orders" }
    })
    recording.finished(died!, { _tag: "Died", detail: "Error: boom" })
    recording.finished(interrupted!, { _tag: "Interrupted" })
    expect(failed).toMatchObject({ outcome: "lost", lostFence: 7, lostReason: "stolen", detail: "lost orders" })
    expect(died).toMatchObject({ outcome: "defect", detail: "Error: boom" })
    expect(interrupted).toMatchObject({ outcome: "interrupted", detail: undefined })
  })

  it("writes to a fresh fenced resource at true time, refusing a stale fence, and not under permits", () => {
    const timeline = new Timeline.Timeline()
    const recording = Recording.make(timeline)
    timeline.now = 10
    recording.write("orders", 5, 0, 0, undefined)
    timeline.now = 20
    recording.write("orders", 4, 1, 1, undefined)
    recording.write("pool", 1, 2, 2, 3)
    expect(recording.writes.map(({ accepted, at, fence }) => ({ at, fence, accepted }))).toEqual([
      { at: 10, fence: 5, accepted: true },
      { at: 20, fence: 4, accepted: false },
      { at: 20, fence: 1, accepted: true }
    ])
    expect(recording.writes[2]!.permits).toBe(3)
  })
})
