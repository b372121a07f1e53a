import { describe, expect, it } from "vitest"
import * as Resume from "../../src/lease/Resume.js"
import * as LockRecord from "../../src/record/LockRecord.js"
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

describe("Resume.checkLease", () => {
  it("keeps the options of a resumed lease with the hand-off's lease duration", () => {
    const options = { leaseMs: 3_000, heartbeatMs: 1_000 }
    expect(Resume.checkLease(3_000, options)).toEqual({ _tag: "Ok", value: options })
  })

  it("refuses another lease duration, saying which one the hand-off keeps", () => {
    expect(Resume.checkLease(3_000, { leaseMs: 5_000 })).toEqual({
      _tag: "Invalid",
      message: "a resumed lease keeps the lease of its hand-off (3000 ms); got 5000 ms"
    })
  })
})

describe("Resume.checkOwnerAndHolder", () => {
  const handoff = { name: "orders/42", owner: "7f3c0a9e2b1d4c5f8a6e0b3d2c1f4a5e", holder: "worker-1" }

  it("keeps a hand-off whose owner and holder are well-formed, a surrogate pair included", () => {
    expect(Resume.checkOwnerAndHolder(handoff)).toEqual({ _tag: "Ok", value: handoff })
    const paired = { ...handoff, owner: "o\uD83D\uDE00", holder: "h\uD83D\uDE00" }
    expect(Resume.checkOwnerAndHolder(paired)).toEqual({ _tag: "Ok", value: paired })
  })

  for (const lone of ["\uD800", "x\uDC00", "\uDE00\uD83D"]) {
    it(`refuses an owner with a lone surrogate: ${JSON.stringify(lone)}`, () => {
      const checked = Resume.checkOwnerAndHolder({ ...handoff, owner: lone })
      expect(checked._tag).toBe("Invalid")
      expect(checked._tag === "Invalid" && checked.message).toMatch(
        /^the hand-off's owner is not well-formed Unicode \(it holds a lone surrogate\)/
      )
    })

    it(`refuses a holder with a lone surrogate: ${JSON.stringify(lone)}`, () => {
      expect(Resume.checkOwnerAndHolder({ ...handoff, holder: lone })).toEqual({
        _tag: "Invalid",
        message: "the hand-off's holder is not well-formed Unicode (it holds a lone surrogate)"
      })
    })
  }

  it("refuses a holder no record can hold", () => {
    const checked = Resume.checkOwnerAndHolder({ ...handoff, holder: "h".repeat(LockRecord.maxHolderBytes + 1) })
    expect(checked._tag === "Invalid" && checked.message).toMatch(/^the hand-off's holder is \d+ UTF-8 bytes/)
  })
})
