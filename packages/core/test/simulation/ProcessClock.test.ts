import { describe, expect, it } from "vitest"
import * as ProcessClock from "../../src/simulation/ProcessClock.js"
import * as Timeline from "../../src/simulation/Timeline.js"
import * as WallClock from "../../src/simulation/WallClock.js"

describe("ProcessClock", () => {
  it("reads wall time as true time plus a constant offset, and monotonic time unskewed, from the epoch", () => {
    const timeline = new Timeline.Timeline()
    const clock = ProcessClock.make(timeline, -250)
    timeline.now = 1_000
    expect(clock.wallMillis()).toBe(ProcessClock.epochMs + 750)
    expect(clock.wallNanos()).toBe(BigInt(ProcessClock.epochMs + 750) * 1_000_000n)
    expect(clock.monotonicNanos()).toBe(BigInt(ProcessClock.epochMs + 1_000) * 1_000_000n)
  })

  it("follows a stepping offset as true time moves", () => {
    const timeline = new Timeline.Timeline()
    const spec = {
      id: "p1",
      offsetMs: 100,
      pauses: [],
      clockSteps: [{ at: 50, kind: "jump" as const, ms: 40 }, { at: 200, kind: "freeze" as const, ms: 30 }]
    }
    const clock = ProcessClock.make(timeline, WallClock.offsetOf(spec))
    const wallAt = (now: number) => {
      timeline.now = now
      return clock.wallMillis() - ProcessClock.epochMs
    }
    expect([wallAt(10), wallAt(50), wallAt(200), wallAt(210), wallAt(230), wallAt(300)]).toEqual([
      110,
      190,
      340,
      340,
      340,
      410
    ])
  })

  it("keeps nanoseconds integers and exact for fractional milliseconds far from the epoch", () => {
    expect(ProcessClock.nanosAt(1_000 / 3)).toBe(BigInt(ProcessClock.epochMs) * 1_000_000n + 333_333_333n)
    expect(ProcessClock.nanosAt(0.5)).toBe(BigInt(ProcessClock.epochMs) * 1_000_000n + 500_000n)
  })

  it("moves a base clock's readings by a constant offset", () => {
    expect(ProcessClock.skewMillis(1_000, 500)).toBe(1_500)
    expect(ProcessClock.skewMillis(1_000, -1_500)).toBe(-500)
    expect(ProcessClock.skewNanos(1_000_000_000n, 0.25)).toBe(1_000_250_000n)
    expect(ProcessClock.skewNanos(5n, -1)).toBe(-999_995n)
  })
})
