import { describe, expect, it } from "vitest"
import * as Watchdog from "../../src/lease/Watchdog.js"

describe("Watchdog", () => {
  it("warns once no more than warnAt is left, on a held lease that has not ended", () => {
    const base = { finished: false, held: true, warnAtMs: 1_000 }
    expect(Watchdog.warns({ ...base, remainingMs: 1_001 })).toBe(false)
    expect(Watchdog.warns({ ...base, remainingMs: 1_000 })).toBe(true)
    expect(Watchdog.warns({ ...base, remainingMs: 10, held: false })).toBe(false)
    expect(Watchdog.warns({ ...base, remainingMs: 10, finished: true })).toBe(false)
  })

  it("wakes the keeper at the renew, the at-risk point while held and ahead, or the deadline", () => {
    const base = { deadline: 10_000, warnAtMs: 1_000, held: true, now: 4_000 }
    expect(Watchdog.nextWakeAt({ ...base, renewAt: 5_000 })).toBe(5_000)
    expect(Watchdog.nextWakeAt({ ...base, renewAt: 20_000 })).toBe(9_000)
    expect(Watchdog.nextWakeAt({ ...base, renewAt: 20_000, held: false })).toBe(10_000)
    expect(Watchdog.nextWakeAt({ ...base, renewAt: 20_000, now: 9_500 })).toBe(10_000)
  })

  it("watches a renew in flight until the at-risk point, then the deadline, then ends the lease", () => {
    expect(Watchdog.watch(5_000, 1_000)).toEqual({ _tag: "Sleep", sleepMs: 4_000 })
    expect(Watchdog.watch(800, 1_000)).toEqual({ _tag: "Sleep", sleepMs: 800 })
    expect(Watchdog.watch(0.5, 1_000)).toEqual({ _tag: "Sleep", sleepMs: 1 })
    expect(Watchdog.watch(0, 1_000)).toEqual({ _tag: "Expired" })
  })
})
