import { describe, expect, it } from "vitest"
import type * as LockRecord from "../../src/record/LockRecord.js"
import * as Reservations from "../../src/simulation/Reservations.js"

const record = (fields: Partial<LockRecord.LockRecord>): LockRecord.LockRecord => ({
  name: "orders",
  owner: undefined,
  holder: undefined,
  leaseUntil: 0,
  leaseMs: 0,
  fence: 3,
  version: 4,
  sequence: 5,
  acquiredAt: undefined,
  data: undefined,
  reservedBy: undefined,
  reservedUntil: 0,
  reservedSince: 0,
  reservedFrom: 0,
  ...fields
})

describe("Reservations", () => {
  it("records a reservation the store made, lasting as the request asked, and nothing it did not make", () => {
    const request = { name: "orders", owner: "w1", reserveMs: 400, graceMs: 0, waitingSince: 1_000 }
    const made = { _tag: "Reserved" as const, record: record({ reservedBy: "w1", reservedUntil: 1_700 }) }
    expect(Reservations.reserved(1_300, "p2", request, made)).toEqual({
      kind: "reserved",
      at: 1_300,
      process: "p2",
      name: "orders",
      owner: "w1",
      reservedUntil: 1_700,
      reserveMs: 400
    })
    const notMade = { _tag: "NotReserved" as const, current: record({ reservedBy: "w9", reservedUntil: 2_000 }) }
    expect(Reservations.reserved(1_300, "p2", request, notMade)).toBeUndefined()
  })

  it("records an acquire of a free lock refused by a reservation, judged when it was applied, as its owner's", () => {
    const conflict = { _tag: "Conflict" as const, current: record({ reservedBy: "w1", reservedUntil: 1_700 }) }
    expect(Reservations.refused(1_500, "p3", conflict, true)).toEqual({
      kind: "refused",
      at: 1_500,
      process: "p3",
      name: "orders",
      owner: "w1",
      reservedUntil: 1_700,
      reserveMs: 0
    })
  })

  it("records no refusal of an acquire judged as of when it was built, nor one a holder or nothing refused", () => {
    const reserved = record({ reservedBy: "w1", reservedUntil: 1_700 })
    expect(Reservations.refused(1_500, "p3", { _tag: "Conflict", current: reserved }, false)).toBeUndefined()
    const held = record({ owner: "o2", reservedBy: "w1", reservedUntil: 1_700 })
    expect(Reservations.refused(1_500, "p3", { _tag: "Conflict", current: held }, true)).toBeUndefined()
    expect(Reservations.refused(1_500, "p3", { _tag: "Conflict", current: record({}) }, true)).toBeUndefined()
    expect(Reservations.refused(1_500, "p3", { _tag: "Conflict", current: undefined }, true)).toBeUndefined()
    expect(Reservations.refused(1_500, "p3", { _tag: "Acquired", record: reserved }, true)).toBeUndefined()
  })
})
