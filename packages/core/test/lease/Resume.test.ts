import { describe, expect, it } from "vitest"
import * as Resume from "../../src/lease/Resume.js"
import { freeRecord, lockRecord } from "../acquire/records.js"

describe("Resume", () => {
  it("refuses a hand-off from the moment its lease runs out on this clock", () => {
    expect(Resume.isExpired(10_000, 9_999)).toBe(false)
    expect(Resume.isExpired(10_000, 10_000)).toBe(true)
  })

  it("keeps the renewed record, and its own new owner found by a retried write", () => {
    const renewed = lockRecord({ owner: "new", fence: 7 })
    expect(Resume.resumedRecord({ _tag: "Renewed", record: renewed }, "new", 7)).toBe(renewed)
    expect(Resume.resumedRecord({ _tag: "Lost", current: renewed }, "new", 7)).toBe(renewed)
  })

  it("finds the lease gone under another owner, another fence, or none", () => {
    expect(Resume.resumedRecord({ _tag: "Lost", current: lockRecord({ owner: "third", fence: 7 }) }, "new", 7))
      .toBeUndefined()
    expect(Resume.resumedRecord({ _tag: "Lost", current: lockRecord({ owner: "new", fence: 8 }) }, "new", 7))
      .toBeUndefined()
    expect(Resume.resumedRecord({ _tag: "Lost", current: freeRecord() }, "new", 7)).toBeUndefined()
    expect(Resume.resumedRecord({ _tag: "Lost", current: undefined }, "new", 7)).toBeUndefined()
  })
})
