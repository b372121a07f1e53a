import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import * as Options from "../src/Options.js"

describe("Options", () => {
  it("defaults to a run under a minute with every incident", () => {
    expect(Options.parse([])).toEqual(Either.right(Options.defaults))
    expect(Options.defaults.incidents).toEqual(["kill", "pause", "outage"])
    expect(Options.defaults.line).toBe("3")
  })

  it("parses times, counts and lists", () => {
    const parsed = Options.parse(["--duration", "8s", "--workers=3", "--lease", "1500ms", "--incidents", "pause,kill"])
    expect(Either.getOrThrow(parsed)).toMatchObject({
      durationMs: 8_000,
      workers: 3,
      leaseMs: 1_500,
      incidents: ["kill", "pause"]
    })
    expect(Either.getOrThrow(Options.parse(["--incidents", "none"])).incidents).toEqual([])
    expect(Either.getOrThrow(Options.parse(["--duration", "1m"])).durationMs).toBe(60_000)
    expect(Either.getOrThrow(Options.parse(["--effect", "4"])).line).toBe("4")
    expect(Either.getOrThrow(Options.parse(["--effect=3"])).line).toBe("3")
  })

  it("rejects what it does not understand, saying what is allowed", () => {
    expect(Options.parse(["--workers", "1"])).toEqual(
      Either.left("--workers: \"1\" must be a whole number from 2 to 16")
    )
    expect(Either.getLeft(Options.parse(["--incidents", "fire"]))._tag).toBe("Some")
    expect(Either.getLeft(Options.parse(["--duration", "soon"])).pipe((left) => left._tag)).toBe("Some")
    expect(Either.isLeft(Options.parse(["--unsafe"]))).toBe(true)
    expect(Either.getOrThrow(Options.parse(["--unsafe", "--incidents", "none"])).unsafe).toBe(true)
    expect(Options.parse(["--effect", "5"])).toEqual(Either.left("--effect: \"5\" is not a line of Leasehold (3 or 4)"))
    expect(Options.parse(["--frobnicate"])).toEqual(Either.left("unknown option --frobnicate"))
  })
})
