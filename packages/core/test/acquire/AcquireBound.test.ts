import { describe, expect, it } from "vitest"
import * as AcquireBound from "../../src/acquire/AcquireBound.js"

describe("AcquireBound", () => {
  it("waits forever without a wait, and until start + wait with one", () => {
    expect(AcquireBound.waitUntil(1_000, undefined)).toBe(Infinity)
    expect(AcquireBound.waitUntil(1_000, 0)).toBe(1_000)
    expect(AcquireBound.waitUntil(1_000, 500)).toBe(1_500)
    expect(AcquireBound.isWaitOver(1_499, 1_500)).toBe(false)
    expect(AcquireBound.isWaitOver(1_500, 1_500)).toBe(true)
    expect(AcquireBound.isWaitOver(1e12, Infinity)).toBe(false)
  })

  it("jitters the poll between half the interval and the whole of it, at least a millisecond", () => {
    expect(AcquireBound.jitteredPollMs(200, 0)).toBe(100)
    expect(AcquireBound.jitteredPollMs(200, 1)).toBe(200)
    expect(AcquireBound.jitteredPollMs(200, 0.5)).toBe(150)
    expect(AcquireBound.jitteredPollMs(1, 0)).toBe(1)
    expect(AcquireBound.jitteredPollMs(0, 0.3)).toBe(1)
  })

  it("never sleeps past the end of the wait, nor less than nothing", () => {
    expect(AcquireBound.retrySleepMs(150, 1_000, Infinity)).toBe(150)
    expect(AcquireBound.retrySleepMs(150, 1_000, 1_100)).toBe(100)
    expect(AcquireBound.retrySleepMs(150, 1_200, 1_100)).toBe(0)
    expect(AcquireBound.conflictSleepMs(12.4, 0, Infinity)).toBe(12)
    expect(AcquireBound.conflictSleepMs(12.6, 0, Infinity)).toBe(13)
    expect(AcquireBound.conflictSleepMs(500, 1_000, 1_100)).toBe(100)
    expect(AcquireBound.conflictSleepMs(-5, 1_000, 1_100)).toBe(0)
  })

  it("lets a call in flight run a slack past the wait, then no longer", () => {
    expect(AcquireBound.timeLeftMs(2_000, 1_500)).toBe(500 + AcquireBound.waitSlackMs)
    expect(AcquireBound.timeLeftMs(2_000, 2_000 + AcquireBound.waitSlackMs + 1)).toBe(0)
  })

  it("reports how long the caller waited, never less than nothing", () => {
    expect(AcquireBound.waitedMs(1_000, 1_250)).toBe(250)
    expect(AcquireBound.waitedMs(1_000, 900)).toBe(0)
  })
})
