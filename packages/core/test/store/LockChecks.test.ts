import { describe, expect, it } from "vitest"
import * as LockRecord from "../../src/record/LockRecord.js"
import * as LockChecks from "../../src/store/LockChecks.js"
import type * as LockProtocol from "../../src/store/LockProtocol.js"

const acquire: LockProtocol.AcquireRequest = {
  name: "orders",
  owner: "owner-a",
  holder: "host-a",
  leaseMs: 1_000,
  data: undefined,
  takeover: { _tag: "Absolute", maxClockSkewMs: 0 }
}

const renew: LockProtocol.RenewRequest = { name: "orders", owner: "owner-a", fence: 1, leaseMs: 1_000 }

const tooMuch = "x".repeat(LockRecord.maxDataBytes + 1)

describe("LockChecks.acquireProblem", () => {
  it("takes a holder and data a record can keep", () => {
    expect(LockChecks.acquireProblem(acquire)).toBeUndefined()
    expect(LockChecks.acquireProblem({ ...acquire, data: "x".repeat(LockRecord.maxDataBytes) })).toBeUndefined()
  })

  it("refuses the holder first, then the data", () => {
    expect(LockChecks.acquireProblem({ ...acquire, holder: "\uD800", data: tooMuch }))
      .toBe("holder is not well-formed Unicode (it holds a lone surrogate)")
    expect(LockChecks.acquireProblem({ ...acquire, data: tooMuch })).toMatch(
      new RegExp(`^data is ${LockRecord.maxDataBytes + 1} UTF-8 bytes, over the limit of ${LockRecord.maxDataBytes}`)
    )
  })
})

describe("LockChecks.renewProblem", () => {
  it("takes an ordered or unordered renew, with or without data", () => {
    expect(LockChecks.renewProblem(renew)).toBeUndefined()
    expect(LockChecks.renewProblem({ ...renew, sequence: 1, setData: { data: undefined } })).toBeUndefined()
  })

  it("refuses the sequence first, then the data it sets", () => {
    expect(LockChecks.renewProblem({ ...renew, sequence: 0, setData: { data: tooMuch } }))
      .toBe("renew sequence 0 is not a whole number of at least 1")
    expect(LockChecks.renewProblem({ ...renew, setData: { data: "\uDC00" } }))
      .toBe("data is not well-formed Unicode (it holds a lone surrogate)")
  })
})
