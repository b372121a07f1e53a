import { describe, expect, it } from "vitest"
import * as OptionsRecord from "../../src/options/OptionsRecord.js"

describe("OptionsRecord", () => {
  it("takes any object that is not an array, and undefined where the options may be left out", () => {
    const options = { lease: 5000 }
    expect(OptionsRecord.check(options, "optional")).toEqual({ _tag: "Ok", value: options })
    expect(OptionsRecord.check(options, "required")).toEqual({ _tag: "Ok", value: options })
    expect(OptionsRecord.check({}, "required")).toEqual({ _tag: "Ok", value: {} })
    expect(OptionsRecord.check(Object.create(null), "required")._tag).toBe("Ok")
    expect(OptionsRecord.check(undefined, "optional")).toEqual({ _tag: "Ok", value: undefined })
  })

  it("refuses null as a mistake, not as no options, naming the options as a whole", () => {
    expect(OptionsRecord.check(null, "optional")).toEqual({
      _tag: "Invalid",
      option: "options",
      message: "options must be a record of named options, or undefined for none; got null"
    })
    expect(OptionsRecord.check(null, "required")).toEqual({
      _tag: "Invalid",
      option: "options",
      message: "options must be a record of named options; got null"
    })
  })

  it("refuses undefined where the options must be given", () => {
    expect(OptionsRecord.problem(undefined, "required")).toBe(
      "options must be a record of named options; got undefined"
    )
  })

  it("refuses arrays, functions and other values, saying what was passed", () => {
    expect(OptionsRecord.problem([{ lease: 5000 }], "optional")).toMatch(/; got an array$/)
    expect(OptionsRecord.problem(() => ({}), "optional")).toMatch(/; got a function$/)
    expect(OptionsRecord.problem("30 seconds", "optional")).toMatch(/; got "30 seconds"$/)
    expect(OptionsRecord.problem(30_000, "optional")).toMatch(/; got 30000$/)
    expect(OptionsRecord.problem(false, "optional")).toMatch(/; got false$/)
  })

  it("names the argument the message is about", () => {
    expect(OptionsRecord.check(null, "required", "the app-wide defaults")).toEqual({
      _tag: "Invalid",
      option: "options",
      message: "the app-wide defaults must be a record of named options; got null"
    })
  })
})
