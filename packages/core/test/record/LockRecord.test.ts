import { describe, expect, it } from "vitest"
import * as LockRecord from "../../src/record/LockRecord.js"
import { lockRecord } from "./fixtures.js"

const held = lockRecord({ owner: "a", holder: "worker-a", leaseUntil: 1000, leaseMs: 500, fence: 3 })

describe("LockRecord: holding and availability", () => {
  it("is held while it names an owner", () => {
    expect(LockRecord.isHeld(held)).toBe(true)
    expect(LockRecord.isHeld(lockRecord())).toBe(false)
  })

  it("is available when free, or once the lease and the skew bound are strictly past", () => {
    expect(LockRecord.isAvailableAt(lockRecord(), 0, 0)).toBe(true)
    expect(LockRecord.isAvailableAt(held, 1000, 0)).toBe(false)
    expect(LockRecord.isAvailableAt(held, 1001, 0)).toBe(true)
    expect(LockRecord.isAvailableAt(held, 1100, 100)).toBe(false)
    expect(LockRecord.isAvailableAt(held, 1101, 100)).toBe(true)
  })
})

describe("LockRecord: reservations", () => {
  const reserved = lockRecord({ reservedBy: "r", reservedUntil: 2000, reservedSince: 100 })

  it("is reserved for another owner until its reservation lapses, never for the reserver", () => {
    expect(LockRecord.isReservedForOtherAt(reserved, "x", 2000)).toBe(true)
    expect(LockRecord.isReservedForOtherAt(reserved, "x", 2001)).toBe(false)
    expect(LockRecord.isReservedForOtherAt(reserved, "r", 1500)).toBe(false)
    expect(LockRecord.isReservedForOtherAt(lockRecord(), "x", 0)).toBe(false)
  })

  it("may be reserved by a waiter that began strictly earlier than the reserver", () => {
    expect(LockRecord.isReservableAt(reserved, "x", 99, 1500)).toBe(true)
    expect(LockRecord.isReservableAt(reserved, "x", 100, 1500)).toBe(false)
    expect(LockRecord.isReservableAt(reserved, "x", 500, 2001)).toBe(true)
    expect(LockRecord.isReservableAt(reserved, "r", 500, 1500)).toBe(true)
  })
})

describe("LockRecord.payloadProblem", () => {
  it("takes a readable holder and data within their budgets", () => {
    expect(LockRecord.payloadProblem({ holder: "", data: undefined })).toBeUndefined()
    expect(LockRecord.payloadProblem({ holder: "h".repeat(LockRecord.maxHolderBytes), data: "d" })).toBeUndefined()
  })

  it("blames the holder first, then the data", () => {
    expect(LockRecord.payloadProblem({ holder: 5, data: 5 })).toEqual({
      field: "holder",
      message: "holder must be a string; got number"
    })
    expect(LockRecord.payloadProblem({ holder: "\uDC00", data: undefined })).toEqual({
      field: "holder",
      message: "holder is not well-formed Unicode (it holds a lone surrogate)"
    })
    expect(LockRecord.payloadProblem({ holder: "é".repeat(LockRecord.maxHolderBytes / 2 + 1), data: undefined }))
      .toEqual({
        field: "holder",
        message: `holder is ${LockRecord.maxHolderBytes + 2} UTF-8 bytes, over the limit of ` +
          `${LockRecord.maxHolderBytes}: use a shorter readable name`
      })
    expect(LockRecord.payloadProblem({ holder: "h", data: 5 })).toEqual({
      field: "data",
      message: "data must be a string (encode it first, e.g. with Schema); got number"
    })
  })
})

describe("LockRecord.dataProblem", () => {
  it("takes no data, and data up to the budget in UTF-8 bytes", () => {
    expect(LockRecord.dataProblem(undefined)).toBeUndefined()
    expect(LockRecord.dataProblem("x".repeat(LockRecord.maxDataBytes))).toBeUndefined()
  })

  it("refuses a byte over the budget, counting UTF-8 bytes, not characters", () => {
    expect(LockRecord.dataProblem("x".repeat(LockRecord.maxDataBytes + 1))).toMatch(
      new RegExp(`^data is ${LockRecord.maxDataBytes + 1} UTF-8 bytes, over the limit of ${LockRecord.maxDataBytes}`)
    )
    expect(LockRecord.dataProblem("€".repeat(LockRecord.maxDataBytes / 3 + 1))).toMatch(/^data is \d+ UTF-8 bytes/)
    expect(LockRecord.dataProblem("\uD800x")).toBe("data is not well-formed Unicode (it holds a lone surrogate)")
  })
})

describe("LockRecord: renew sequences", () => {
  it("takes no sequence or a whole one of at least 1", () => {
    expect(LockRecord.sequenceProblem(undefined)).toBeUndefined()
    expect(LockRecord.sequenceProblem(1)).toBeUndefined()
    for (const bad of [0, 1.5, -1, Number.MAX_SAFE_INTEGER + 1, "2"]) {
      expect(LockRecord.sequenceProblem(bad)).toBe(`renew sequence ${String(bad)} is not a whole number of at least 1`)
    }
  })

  it("supersedes a renew whose sequence the record has reached, unless it moves the lease to a new owner", () => {
    expect(LockRecord.isRenewSuperseded(3, { sequence: 3 })).toBe(true)
    expect(LockRecord.isRenewSuperseded(3, { sequence: 4 })).toBe(false)
    expect(LockRecord.isRenewSuperseded(3, { sequence: undefined })).toBe(false)
    expect(LockRecord.isRenewSuperseded(3, { sequence: 1, newOwner: "b" })).toBe(false)
  })
})
