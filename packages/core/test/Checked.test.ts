import { describe, expect, it } from "vitest"
import * as Checked from "../src/Checked.js"

describe("Checked", () => {
  it("keeps the value of a good input and the message of a bad one", () => {
    const good = Checked.ok(3)
    const bad = Checked.invalid("not a number")
    expect(Checked.isOk(good) ? good.value : undefined).toBe(3)
    expect(Checked.isOk(bad)).toBe(false)
    expect(bad._tag === "Invalid" ? bad.message : undefined).toBe("not a number")
  })
})
