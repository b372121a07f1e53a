import { describe, expect, it } from "vitest"
import * as LockProtocol from "../../src/store/LockProtocol.js"

describe("LockProtocol.listLimitProblem", () => {
  it("takes whole page sizes of 1 or more, and Infinity for one page of everything", () => {
    for (const limit of [1, LockProtocol.defaultListLimit, Number.MAX_SAFE_INTEGER, Infinity]) {
      expect(LockProtocol.listLimitProblem(limit)).toBeUndefined()
    }
  })

  it("refuses anything else, quoting strings, and names the default", () => {
    const tail = `is not a page size: use a whole number of 1 or more (Infinity for every record in one page), or ` +
      `none for the default of ${LockProtocol.defaultListLimit}`
    expect(LockProtocol.listLimitProblem(0)).toBe(`list limit 0 ${tail}`)
    expect(LockProtocol.listLimitProblem(2.5)).toBe(`list limit 2.5 ${tail}`)
    expect(LockProtocol.listLimitProblem(-Infinity)).toBe(`list limit -Infinity ${tail}`)
    expect(LockProtocol.listLimitProblem(Number.NaN)).toBe(`list limit NaN ${tail}`)
    expect(LockProtocol.listLimitProblem("10")).toBe(`list limit "10" ${tail}`)
    expect(LockProtocol.listLimitProblem(undefined)).toBe(`list limit undefined ${tail}`)
  })
})
