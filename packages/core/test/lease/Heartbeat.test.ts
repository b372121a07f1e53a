import { describe, expect, it } from "vitest"
import * as Heartbeat from "../../src/lease/Heartbeat.js"

describe("Heartbeat", () => {
  it("sends the first renew in the second half of the first heartbeat, never later than a full one", () => {
    expect(Heartbeat.firstRenewAt(1_000, 1_000, 0)).toBe(2_000)
    expect(Heartbeat.firstRenewAt(1_000, 1_000, 1)).toBe(1_500)
    expect(Heartbeat.firstRenewAt(1_000, 1_000, 0.999)).toBe(1_501)
    expect(Heartbeat.firstRenewAt(0, 3, 1)).toBe(2)
  })

  it("sends the next renew a heartbeat after the last one was sent", () => {
    expect(Heartbeat.nextRenewAt(5_000, 1_000)).toBe(6_000)
  })

  it("retries a failed renew after a doubling delay, at most a heartbeat", () => {
    expect(Heartbeat.retryDelayMs(1_000, 1)).toBe(100)
    expect(Heartbeat.retryDelayMs(1_000, 2)).toBe(200)
    expect(Heartbeat.retryDelayMs(1_000, 4)).toBe(800)
    expect(Heartbeat.retryDelayMs(1_000, 5)).toBe(1_000)
    expect(Heartbeat.retryDelayMs(Number.MAX_SAFE_INTEGER, 1_000)).toBe(50 * 2 ** 16)
  })

  describe("step", () => {
    const base = { deadline: 10_000, renewAt: 5_000, warnAtMs: 1_000, held: true }

    it("declares the loss at the deadline", () => {
      expect(Heartbeat.step({ ...base, now: 10_000 })).toEqual({ _tag: "Expired" })
    })

    it("renews once the renew is due", () => {
      expect(Heartbeat.step({ ...base, now: 5_000 })).toEqual({ _tag: "Renew", remainingMs: 5_000 })
    })

    it("sleeps until the renew, the at-risk point or the deadline, whichever comes first", () => {
      expect(Heartbeat.step({ ...base, now: 4_000 })).toEqual({ _tag: "Sleep", remainingMs: 6_000, sleepMs: 1_000 })
      expect(Heartbeat.step({ ...base, renewAt: 20_000, now: 4_000 }))
        .toEqual({ _tag: "Sleep", remainingMs: 6_000, sleepMs: 5_000 })
      // Already at risk: only the deadline is left to wake for.
      expect(Heartbeat.step({ ...base, renewAt: 20_000, held: false, now: 4_000 }))
        .toEqual({ _tag: "Sleep", remainingMs: 6_000, sleepMs: 6_000 })
    })

    it("sleeps at least a millisecond", () => {
      expect(Heartbeat.step({ ...base, renewAt: 9_000.5, now: 9_000 }))
        .toEqual({ _tag: "Sleep", remainingMs: 1_000, sleepMs: 1 })
    })
  })
})
