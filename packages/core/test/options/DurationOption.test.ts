import { describe, expect, it } from "vitest"
import * as Checked from "../../src/Checked.js"
import * as DurationInput from "../../src/options/DurationInput.js"
import * as DurationOption from "../../src/options/DurationOption.js"

/** Reads plain numbers as milliseconds, as a shell reads its runtime's inputs. */
const read: DurationInput.ReadMillis<unknown> = (input) => {
  const problem = DurationInput.problem(input)
  return problem === undefined && typeof input === "number" ? Checked.ok(input) : Checked.invalid(problem ?? "?")
}

describe("DurationOption.check", () => {
  it("falls back to the default, rounded to whole milliseconds, when not given", () => {
    expect(DurationOption.check("lease", undefined, 10_000 / 3, false, read)).toEqual({ _tag: "Ok", value: 3333 })
  })

  it("rounds a given value to whole milliseconds", () => {
    expect(DurationOption.check("lease", 1.5, 1, false, read)).toEqual({ _tag: "Ok", value: 2 })
    expect(DurationOption.check("wait", 0.4, 1, true, read)).toEqual({ _tag: "Ok", value: 0 })
  })

  it("refuses what the runtime can not read, naming the option and quoting the input", () => {
    expect(DurationOption.check("wait", -5, 0, true, read)).toEqual({
      _tag: "Invalid",
      option: "wait",
      message: `wait must be a finite, non-negative duration of at most ${DurationOption.maxMs} ms; got -5, which ` +
        `is negative`
    })
  })

  it("refuses zero in whole milliseconds where zero is not allowed", () => {
    const checked = DurationOption.check("heartbeat", 0.4, 1, false, read)
    expect(checked).toMatchObject({ _tag: "Invalid", option: "heartbeat" })
    expect(checked._tag === "Invalid" && checked.message).toBe(
      `heartbeat must be a finite, positive duration of at most ${DurationOption.maxMs} ms; got 0.4, which is 0 in ` +
        `whole milliseconds (durations are whole milliseconds)`
    )
  })

  it("takes the platform's longest timer and refuses a millisecond more", () => {
    expect(DurationOption.check("lease", DurationOption.maxMs, 1, false, read)).toEqual({
      _tag: "Ok",
      value: DurationOption.maxMs
    })
    const over = DurationOption.check("lease", DurationOption.maxMs + 1, 1, false, read)
    expect(over._tag === "Invalid" && over.message).toMatch(/^lease must be .* \(about 24\.8 days: the platform's/)
  })
})

describe("DurationOption.checkPositive", () => {
  it("keeps the default as it is and rounds a given value", () => {
    expect(DurationOption.checkPositive("maxBackoff", undefined, 1234, read)).toEqual({ _tag: "Ok", value: 1234 })
    expect(DurationOption.checkPositive("maxBackoff", 2.6, 1, read)).toEqual({ _tag: "Ok", value: 3 })
  })

  it("refuses zero, bad and too long values in the election's words", () => {
    const wanted = `a finite, positive duration of at most ${DurationOption.maxMs} ms`
    expect(DurationOption.checkPositive("pollInterval", 0, 1, read)).toEqual({
      _tag: "Invalid",
      option: "pollInterval",
      message: `pollInterval must be ${wanted}; got 0, which is 0 in whole milliseconds`
    })
    expect(DurationOption.checkPositive("pollInterval", Number.NaN, 1, read)).toMatchObject({
      message: `pollInterval must be ${wanted}; got NaN, which is not a number`
    })
    expect(DurationOption.checkPositive("pollInterval", DurationOption.maxMs + 1, 1, read)).toMatchObject({
      message: `pollInterval must be ${wanted}; got ${DurationOption.maxMs + 1}`
    })
  })
})
