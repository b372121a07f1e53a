import { describe, expect, it } from "vitest"
import * as DurationOption from "../../src/options/DurationOption.js"
import * as ElectionOptions from "../../src/options/ElectionOptions.js"
import * as LockOptions from "../../src/options/LockOptions.js"
import { readMillis } from "./readMillis.js"

describe("ElectionOptions.lockOptionsOf", () => {
  it("passes the caller's lock options on without the election's own, waiting forever", () => {
    expect(ElectionOptions.lockOptionsOf({ lease: 5000, maxBackoff: 100, maxCampaignFailures: 3, holder: "a" }))
      .toEqual({ lease: 5000, holder: "a", wait: "forever" })
    expect(ElectionOptions.lockOptionsOf(undefined)).toEqual({ wait: "forever" })
  })
})

describe("ElectionOptions.resolveRun", () => {
  it("backs off at most a lease, and campaigns forever, unless told otherwise", () => {
    expect(ElectionOptions.resolveRun(undefined, 7000, readMillis)).toEqual({
      _tag: "Ok",
      value: { maxBackoffMs: 7000, maxCampaignFailures: Infinity }
    })
    expect(ElectionOptions.resolveRun({ maxBackoff: "2 seconds", maxCampaignFailures: 5 }, 7000, readMillis))
      .toEqual({ _tag: "Ok", value: { maxBackoffMs: 2000, maxCampaignFailures: 5 } })
    expect(ElectionOptions.resolveRun({ maxCampaignFailures: "forever" }, 1, readMillis)).toMatchObject({
      value: { maxCampaignFailures: Infinity }
    })
  })

  it("refuses a zero back-off", () => {
    expect(ElectionOptions.resolveRun({ maxBackoff: 0 }, 1, readMillis)).toEqual({
      _tag: "Invalid",
      option: "maxBackoff",
      message:
        `maxBackoff must be a finite, positive duration of at most ${DurationOption.maxMs} ms; got 0, which is ` +
        `0 in whole milliseconds`
    })
  })

  it("refuses a failure budget that is not a whole number of at least 1", () => {
    for (const bad of [0, 1.5, -1, Number.NaN, "3"]) {
      const checked = ElectionOptions.resolveRun(
        { maxCampaignFailures: bad as number },
        1,
        readMillis
      )
      expect(checked).toMatchObject({ _tag: "Invalid", option: "maxCampaignFailures" })
      expect(checked._tag === "Invalid" && checked.message).toMatch(
        /^maxCampaignFailures must be a whole number of at least 1, or "forever"; got /
      )
    }
  })
})

describe("ElectionOptions.resolveWatch", () => {
  it("polls once a waiter's longest poll interval, with the app-wide takeover mode, unless told otherwise", () => {
    expect(ElectionOptions.defaultWatchPollIntervalMs).toBe(LockOptions.maxPollIntervalMs)
    expect(ElectionOptions.resolveWatch(undefined, undefined, readMillis)).toEqual({
      _tag: "Ok",
      value: { pollIntervalMs: ElectionOptions.defaultWatchPollIntervalMs, takeover: "absolute" }
    })
    expect(ElectionOptions.resolveWatch(undefined, "observed", readMillis)).toMatchObject({
      value: { takeover: "observed" }
    })
    expect(ElectionOptions.resolveWatch({ pollInterval: 250, takeover: "absolute" }, "observed", readMillis))
      .toEqual({ _tag: "Ok", value: { pollIntervalMs: 250, takeover: "absolute" } })
  })

  it("refuses a bad poll interval, then a bad takeover mode", () => {
    expect(ElectionOptions.resolveWatch({ pollInterval: -1 }, undefined, readMillis)).toMatchObject({
      _tag: "Invalid",
      option: "pollInterval"
    })
    const watch = { takeover: "never" } as unknown as ElectionOptions.WatchInput<number>
    expect(ElectionOptions.resolveWatch(watch, undefined, readMillis)).toEqual({
      _tag: "Invalid",
      option: "takeover",
      message: `takeover must be "absolute" or "observed"; got "never"`
    })
  })
})
