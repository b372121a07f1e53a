import { describe, expect, it } from "vitest"
import * as LeaseLoss from "../../src/lease/LeaseLoss.js"
import { lockRecord } from "../acquire/records.js"

describe("LeaseLoss", () => {
  it("says stolen when the store names another holder, freed when it shows the lock free", () => {
    expect(LeaseLoss.goneReason(undefined, lockRecord())).toBe("stolen")
    expect(LeaseLoss.goneReason(undefined, undefined)).toBe("freed")
  })

  it("says stolen for permits, whose store names nobody", () => {
    expect(LeaseLoss.goneReason(2, undefined)).toBe("stolen")
  })
})
