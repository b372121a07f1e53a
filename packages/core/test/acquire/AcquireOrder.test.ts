import { describe, expect, it } from "vitest"
import * as AcquireOrder from "../../src/acquire/AcquireOrder.js"

describe("AcquireOrder", () => {
  it("takes every set in one order, each name once, whatever order it was asked in", () => {
    expect(AcquireOrder.order(["b", "a", "c", "a"])).toEqual(["a", "b", "c"])
    expect(AcquireOrder.order(new Set(["c", "b"]))).toEqual(AcquireOrder.order(["b", "c"]))
    // UTF-16 code units: capitals before small letters, "10" before "9".
    expect(AcquireOrder.order(["shard-9", "shard-10", "Z", "a"])).toEqual(["Z", "a", "shard-10", "shard-9"])
  })

  it("refuses what is not a non-empty iterable of strings", () => {
    expect(AcquireOrder.namesProblem(["a"])).toBeUndefined()
    expect(AcquireOrder.namesProblem(new Set(["a"]))).toBeUndefined()
    expect(AcquireOrder.namesProblem("ab")).toContain("got a string")
    expect(AcquireOrder.namesProblem(null)).toContain("got null")
    expect(AcquireOrder.namesProblem([])).toContain("must not be empty")
    expect(AcquireOrder.namesProblem(["a", 1])).toContain("got number")
  })

  it("leaves the rest of the wait to the next lock, never less than nothing", () => {
    expect(AcquireOrder.waitLeftMs(1_000, 400)).toBe(600)
    expect(AcquireOrder.waitLeftMs(1_000, 1_500)).toBe(0)
    expect(AcquireOrder.waitLeftMs(Infinity, 1_500)).toBe(Infinity)
  })
})
