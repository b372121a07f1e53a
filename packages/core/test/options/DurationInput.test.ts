import { describe, expect, it } from "vitest"
import * as DurationInput from "../../src/options/DurationInput.js"

describe("DurationInput.problem", () => {
  it("takes finite, non-negative numbers, bigints, duration strings and [seconds, nanos] pairs", () => {
    for (const input of [0, 1.5, 30_000, 0n, 5n, "0 millis", "30 seconds", "1.5 minutes", "1 week", [1, 500], [0, 0]]) {
      expect(DurationInput.problem(input)).toBeUndefined()
    }
  })

  it("says what is wrong with a bad number, in words that follow 'which'", () => {
    expect(DurationInput.problem(Number.NaN)).toBe("is not a number")
    expect(DurationInput.problem(-1)).toBe("is negative")
    expect(DurationInput.problem(-Infinity)).toBe("is negative")
    expect(DurationInput.problem(Infinity)).toBe("is infinite")
    expect(DurationInput.problem(-1n)).toBe("is negative")
  })

  it("keeps the sign of a string that Effect would read as zero", () => {
    expect(DurationInput.problem("-10 seconds")).toBe("is negative")
    expect(DurationInput.problem("-0.5 millis")).toBe("is negative")
  })

  it("refuses strings and pairs that are no duration", () => {
    for (const input of ["", "30", "thirty seconds", "30 fortnights", "30seconds", [1], [1, 2, 3], ["1", 2]]) {
      expect(DurationInput.problem(input)).toBe(DurationInput.notADuration)
    }
  })

  it("checks each part of a pair", () => {
    expect(DurationInput.problem([Number.NaN, 0])).toBe("is not a number")
    expect(DurationInput.problem([1, -1])).toBe("is negative")
    expect(DurationInput.problem([Infinity, 0])).toBe("is infinite")
  })

  it("leaves every other value, a runtime's own duration included, to the shell as no duration", () => {
    for (const input of [undefined, null, true, {}, { millis: 5 }, () => 5]) {
      expect(DurationInput.problem(input)).toBe(DurationInput.notADuration)
    }
  })
})

describe("DurationInput.describe", () => {
  it("quotes strings, so that empty and blank ones are visible, and cuts long ones", () => {
    expect(DurationInput.describe("")).toBe(`""`)
    expect(DurationInput.describe(" ")).toBe(`" "`)
    const long = DurationInput.describe("x".repeat(100))
    expect(long).toBe(JSON.stringify("x".repeat(64) + "…"))
  })

  it("shows bigints with their n, arrays item by item, and anything else as String does", () => {
    expect(DurationInput.describe(5n)).toBe("5n")
    expect(DurationInput.describe([1, "2 seconds", 3n])).toBe(`[1, "2 seconds", 3n]`)
    expect(DurationInput.describe(Number.NaN)).toBe("NaN")
    expect(DurationInput.describe(undefined)).toBe("undefined")
    expect(DurationInput.describe({ toString: () => "Duration(5 millis)" })).toBe("Duration(5 millis)")
  })

  it("falls back to the type of a value that can not be shown", () => {
    expect(DurationInput.describe(Object.create(null))).toBe("object")
    expect(DurationInput.describe(Symbol("s"))).toBe("Symbol(s)")
  })
})

describe("DurationInput's messages for a zero Duration that may not have been meant", () => {
  it("name what each runtime turns into zero, and how to write a zero that is meant", () => {
    expect(DurationInput.ambiguousZero).toContain("negative or NaN")
    expect(DurationInput.ambiguousNaNZero).toContain("NaN")
    expect(DurationInput.ambiguousNaNZero).not.toContain("negative")
    for (const message of [DurationInput.ambiguousZero, DurationInput.ambiguousNaNZero]) {
      expect(message).toMatch(/^is a zero Duration/)
      expect(message).toContain("Duration.zero")
    }
  })
})
