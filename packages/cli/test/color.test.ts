import { describe, expect, it } from "@effect/vitest"
import { Console, Effect } from "effect"
import * as Color from "../src/internal/color.js"

describe("Color.enabled", () => {
  it("colours a terminal only, unless NO_COLOR says otherwise; FORCE_COLOR wins over both", () => {
    expect(Color.enabled({}, true)).toBe(true)
    expect(Color.enabled({}, false)).toBe(false)
    expect(Color.enabled({}, undefined)).toBe(false)
    expect(Color.enabled({ NO_COLOR: "1" }, true)).toBe(false)
    // An empty NO_COLOR is as good as unset.
    expect(Color.enabled({ NO_COLOR: "" }, true)).toBe(true)
    expect(Color.enabled({ FORCE_COLOR: "1" }, false)).toBe(true)
    expect(Color.enabled({ FORCE_COLOR: "" }, false)).toBe(true)
    expect(Color.enabled({ FORCE_COLOR: "1", NO_COLOR: "1" }, false)).toBe(true)
    expect(Color.enabled({ FORCE_COLOR: "0" }, true)).toBe(false)
    expect(Color.enabled({ FORCE_COLOR: "false" }, true)).toBe(false)
  })
})

describe("Color.console", () => {
  const recording = Console.consoleWith((current) => {
    const lines: Array<string> = []
    const base: Console.Console = {
      ...current,
      log: (...args) => Effect.sync(() => void lines.push(`out ${args.join(" ")}`)),
      error: (...args) => Effect.sync(() => void lines.push(`err ${args.join(" ")}`))
    }
    return Effect.succeed({ base, lines })
  })
  const styled = "\x1b[0;1mUSAGE\x1b[0m"

  it.effect("strips colours and bold from the streams without colour, and keeps cursor movement", () =>
    Effect.gen(function*() {
      const { base, lines } = yield* recording
      const write = Effect.zipRight(Console.log(styled, 42), Console.error(`\x1b[H\x1b[2J${styled}`))
      yield* Effect.withConsole(write, Color.console(base, { stdout: false, stderr: true }))
      yield* Effect.withConsole(write, Color.console(base, { stdout: true, stderr: false }))
      expect(lines).toEqual([
        "out USAGE 42",
        `err \x1b[H\x1b[2J${styled}`,
        `out ${styled} 42`,
        "err \x1b[H\x1b[2JUSAGE"
      ])
    }))
})
