import { describe, expect, it } from "vitest"
import * as LockInvariants from "../../src/safety/LockInvariants.js"
import type * as History from "../../src/simulation/History.js"
import * as Schedule from "../../src/simulation/Schedule.js"
import { history } from "./fixtures.js"

const reserved = (at: number, reserveMs: number): History.ReservationRecord => ({
  kind: "reserved",
  at,
  process: "p1",
  name: "a",
  owner: "o1",
  reservedUntil: 5_000,
  reserveMs
})

const refused = (at: number, reservedUntil = 5_000): History.ReservationRecord => ({
  kind: "refused",
  at,
  process: "p2",
  name: "a",
  owner: "o1",
  reservedUntil,
  reserveMs: 0
})

describe("LockInvariants.reservationBound", () => {
  it("a reservation may refuse acquires up to its length plus maxClockSkew after it was made, no later", () => {
    const skew = Schedule.defaultTimings.maxClockSkewMs
    const inBound = history({ reservations: [reserved(100, 500), refused(600 + skew)] })
    expect(LockInvariants.reservationBound(inBound)).toEqual([])
    const past = history({ reservations: [reserved(100, 500), refused(601 + skew)] })
    expect(LockInvariants.reservationBound(past)).toEqual([{
      invariant: "reservationBound",
      message: `"a": p2's acquire of the free lock at ${601 + skew} was refused by p1's reservation of 500 ms made ` +
        `at 100, past its end plus maxClockSkew (${skew} ms)`
    }])
  })

  it("a refusal by a reservation nobody made is caught", () => {
    const findings = LockInvariants.reservationBound(history({ reservations: [reserved(100, 500), refused(200, 1)] }))
    expect(findings).toEqual([{
      invariant: "reservationBound",
      message: `"a": p2's acquire of the free lock at 200 was refused by a reservation nobody made`
    }])
  })
})
