import { describe, expect, it } from "vitest"
import * as ReadWriteMix from "../src/ReadWriteMix.js"

const section = (role: ReadWriteMix.Role, enteredAt: number, leftAt: number, exclusive = role === "write") => ({
  role,
  exclusive,
  askedAt: enteredAt,
  enteredAt,
  leftAt,
  lost: false
})

describe("overlaps of recorded sections", () => {
  it("does not count readers sharing the name, nor one section leaving as the next enters", () => {
    expect(ReadWriteMix.overlaps([
      section("read", 0, 10),
      section("read", 5, 15),
      section("write", 15, 20),
      section("read", 20, 30)
    ])).toBe(0)
  })

  it("counts each pair with a writer's section in it, and any pair under the exclusive lock", () => {
    expect(ReadWriteMix.overlaps([
      section("read", 0, 10),
      section("read", 5, 15),
      section("write", 8, 12)
    ])).toBe(2)
    expect(ReadWriteMix.overlaps([section("read", 0, 10, true), section("read", 9, 12, true)])).toBe(1)
  })
})
