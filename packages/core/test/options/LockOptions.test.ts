import { describe, expect, it } from "vitest"
import * as LockOptions from "../../src/options/LockOptions.js"
import type * as OptionCheck from "../../src/options/OptionCheck.js"
import * as LockRecord from "../../src/record/LockRecord.js"
import { readMillis } from "./readMillis.js"

const resolve = (input: LockOptions.Input<number | string>) => LockOptions.resolve(input, "pid 1", readMillis)

const resolved = (input: LockOptions.Input<number | string>): LockOptions.Resolved => {
  const checked = resolve(input)
  if (checked._tag === "Invalid") throw new Error(checked.message)
  return checked.value
}

const refusal = (checked: OptionCheck.OptionCheck<unknown>) =>
  checked._tag === "Invalid" ? { option: checked.option, message: checked.message } : undefined

describe("LockOptions.resolve: defaults", () => {
  it("fills in every default from the named constants", () => {
    expect(resolved({})).toEqual({
      leaseMs: LockOptions.defaultLeaseMs,
      heartbeatMs: LockOptions.defaultLeaseMs / LockOptions.heartbeatsPerLease,
      waitMs: 0,
      maxClockSkewMs: LockOptions.defaultMaxClockSkewMs,
      warnAtMs: LockOptions.defaultLeaseMs * LockOptions.warnAtFraction,
      safetyMarginMs: LockOptions.defaultLeaseMs * LockOptions.safetyMarginFraction,
      pollIntervalMs: LockOptions.maxPollIntervalMs,
      takeover: "absolute",
      holder: "pid 1",
      data: undefined
    })
  })

  it("derives the defaults of a short lease from it, in whole milliseconds", () => {
    expect(resolved({ lease: 100 })).toMatchObject({
      leaseMs: 100,
      heartbeatMs: 33,
      safetyMarginMs: 10,
      warnAtMs: 33,
      pollIntervalMs: 100 / LockOptions.pollsPerLease
    })
  })

  it("never puts the default warning past half of what is left before the local deadline", () => {
    // With a large margin, a third of the lease would be past the local deadline's midpoint.
    expect(resolved({ lease: 1000, safetyMargin: 500, heartbeat: 100 }).warnAtMs).toBe(250)
  })

  it("reads 'forever' as no wait bound", () => {
    expect(resolved({ wait: "forever" }).waitMs).toBeUndefined()
    expect(resolved({ wait: "2 seconds" }).waitMs).toBe(2000)
  })
})

describe("LockOptions.resolve: refusals", () => {
  it("refuses the first bad value in the order lease, heartbeat, wait, skew, margin, warning, poll", () => {
    const bad = -1
    expect(refusal(resolve({ lease: bad, heartbeat: bad }))?.option).toBe("lease")
    expect(refusal(resolve({ heartbeat: bad, wait: bad }))?.option).toBe("heartbeat")
    expect(refusal(resolve({ wait: bad, maxClockSkew: bad }))?.option).toBe("wait")
    expect(refusal(resolve({ maxClockSkew: bad, safetyMargin: bad }))?.option).toBe("maxClockSkew")
    expect(refusal(resolve({ safetyMargin: bad, warnAt: bad }))?.option).toBe("safetyMargin")
    expect(refusal(resolve({ warnAt: bad, pollInterval: bad }))?.option).toBe("warnAt")
    expect(refusal(resolve({ pollInterval: bad }))?.option).toBe("pollInterval")
  })

  it("refuses zero for the lease, heartbeat and poll interval, and takes it for the others", () => {
    for (const option of ["lease", "heartbeat", "pollInterval"] as const) {
      expect(refusal(resolve({ [option]: 0 }))?.option).toBe(option)
    }
    expect(resolved({ wait: 0, maxClockSkew: 0, safetyMargin: 0, warnAt: 0 })).toMatchObject({
      waitMs: 0,
      maxClockSkewMs: 0,
      safetyMarginMs: 0,
      warnAtMs: 0
    })
  })

  it("refuses a margin of the whole lease", () => {
    expect(refusal(resolve({ lease: 1000, safetyMargin: 1000 }))).toEqual({
      option: "safetyMargin",
      message: "safetyMargin (1000 ms) must be less than lease (1000 ms)"
    })
  })

  it("refuses a heartbeat of the whole lease, then one past the local deadline", () => {
    expect(refusal(resolve({ lease: 1000, heartbeat: 1000 }))).toEqual({
      option: "heartbeat",
      message: "heartbeat (1000 ms) must be less than lease (1000 ms)"
    })
    expect(refusal(resolve({ lease: 1000, heartbeat: 900, safetyMargin: 100 }))).toEqual({
      option: "heartbeat",
      message: "heartbeat (900 ms) must be less than lease minus safetyMargin (900 ms), or the lease would be lost " +
        "before the first renew"
    })
    expect(resolved({ lease: 1000, heartbeat: 899, safetyMargin: 100 }).heartbeatMs).toBe(899)
  })

  it("refuses a warning at or past the local deadline", () => {
    expect(refusal(resolve({ lease: 1000, safetyMargin: 100, warnAt: 900 }))).toEqual({
      option: "warnAt",
      message: "warnAt (900 ms) must be less than lease minus safetyMargin (900 ms), the time a fresh lease has " +
        "before its local deadline, or every lease would be at risk from the start"
    })
  })

  it("refuses a takeover mode that is neither absolute nor observed", () => {
    const input = { takeover: "relative" } as unknown as LockOptions.Input<number>
    expect(refusal(resolve(input))).toEqual({
      option: "takeover",
      message: `takeover must be "absolute" or "observed"; got "relative"`
    })
    expect(resolved({ takeover: "observed" }).takeover).toBe("observed")
  })

  it("refuses an empty holder, and a holder or data the record can not keep", () => {
    expect(refusal(resolve({ holder: "" }))).toEqual({
      option: "holder",
      message: `holder must be a non-empty string; got ""`
    })
    expect(refusal(resolve({ holder: "h".repeat(LockRecord.maxHolderBytes + 1) }))?.option).toBe("holder")
    expect(refusal(resolve({ data: "\uD800" }))).toEqual({
      option: "data",
      message: "data is not well-formed Unicode (it holds a lone surrogate)"
    })
  })
})

describe("LockOptions.overlay", () => {
  it("keeps the defaults a given field leaves undefined, and takes every other one", () => {
    const defaults: LockOptions.Input<number> = { lease: 5000, holder: "app", wait: 100 }
    expect(LockOptions.overlay(defaults, { lease: undefined, wait: "forever", data: "d" })).toEqual({
      lease: 5000,
      holder: "app",
      wait: "forever",
      data: "d"
    })
    expect(LockOptions.overlay(defaults, undefined)).toBe(defaults)
  })
})

describe("LockOptions.checkValues", () => {
  it("checks each value on its own and leaves relations for later", () => {
    expect(LockOptions.checkValues({ lease: 1000, heartbeat: 5000 }, readMillis)).toEqual({
      _tag: "Ok",
      value: undefined
    })
    expect(LockOptions.checkValues({ wait: "forever", warnAt: 0 }, readMillis)._tag).toBe("Ok")
  })

  it("refuses a bad value with the option's own message", () => {
    expect(refusal(LockOptions.checkValues({ pollInterval: 0 }, readMillis))?.option).toBe("pollInterval")
    expect(refusal(LockOptions.checkValues({ safetyMargin: "-1 seconds" }, readMillis))).toEqual({
      option: "safetyMargin",
      message: `safetyMargin must be a finite, non-negative duration of at most ${2 ** 31 - 1} ms; got "-1 seconds", ` +
        `which is negative`
    })
    expect(refusal(LockOptions.checkValues({ wait: "soon" }, readMillis))?.option).toBe("wait")
  })
})
