import { describe, expect, it } from "vitest"
import * as Reservation from "../../src/acquire/Reservation.js"
import { freeRecord, lockRecord } from "./records.js"

const options: Reservation.ReservationOptions = { takeover: "absolute", pollIntervalMs: 100, leaseMs: 3_000 }

describe("Reservation", () => {
  it("lasts a few polls, bounded by the lease, at least a millisecond", () => {
    expect(Reservation.reservationMs(options)).toBe(400)
    expect(Reservation.reservationMs({ ...options, leaseMs: 250 })).toBe(250)
    expect(Reservation.reservationMs({ ...options, pollIntervalMs: 0, leaseMs: 0 })).toBe(1)
  })

  it("asks for no longer than the acquire may still wait", () => {
    expect(Reservation.reserveMs(options, 1_000, Infinity)).toBe(400)
    expect(Reservation.reserveMs(options, 1_000, 1_150)).toBe(150)
    expect(Reservation.reserveMs(options, 1_000, 1_000)).toBe(1)
  })

  it("dates the wait on the wall clock from the monotonic time waited", () => {
    expect(Reservation.waitingSince(50_000, 1_300, 1_000)).toBe(49_700)
  })

  describe("shouldReserve", () => {
    const held = lockRecord({ owner: "other" })

    it("reserves once a poll interval has been waited, with absolute takeover only", () => {
      expect(Reservation.shouldReserve(options, "me", held, 1_000, 1_099)).toBe(false)
      expect(Reservation.shouldReserve(options, "me", held, 1_000, 1_100)).toBe(true)
      expect(Reservation.shouldReserve({ ...options, takeover: "observed" }, "me", held, 1_000, 5_000)).toBe(false)
    })

    it("does not reserve a lock it holds", () => {
      expect(Reservation.shouldReserve(options, "other", held, 1_000, 5_000)).toBe(false)
    })

    it("leaves a live reservation of an earlier waiter alone, and takes over a later waiter's", () => {
      const reserved = { reservedBy: "third", reservedUntil: 6_000 }
      const earlier = lockRecord({ ...reserved, reservedSince: 900 })
      const later = lockRecord({ ...reserved, reservedSince: 1_100 })
      expect(Reservation.shouldReserve(options, "me", earlier, 1_000, 5_000)).toBe(false)
      expect(Reservation.shouldReserve(options, "me", later, 1_000, 5_000)).toBe(true)
      // A lapsed reservation keeps nobody out.
      expect(Reservation.shouldReserve(options, "me", earlier, 1_000, 6_001)).toBe(true)
    })

    it("refreshes its own reservation only as it nears its end", () => {
      const own = lockRecord({ reservedBy: "me", reservedUntil: 5_300, reservedSince: 1_000 })
      expect(Reservation.shouldReserve(options, "me", own, 1_000, 5_199)).toBe(false)
      expect(Reservation.shouldReserve(options, "me", own, 1_000, 5_200)).toBe(true)
    })
  })

  describe("sleepMs", () => {
    const base = { options, owner: "me", untilTakeoverMs: 10_000, pollMs: 80, wallNow: 8_000 }

    it("sleeps a poll or until the takeover, whichever is sooner, in the usual case", () => {
      expect(Reservation.sleepMs({ ...base, record: undefined })).toBe(80)
      expect(Reservation.sleepMs({ ...base, record: lockRecord(), untilTakeoverMs: 30 })).toBe(30)
      expect(Reservation.sleepMs({ ...base, record: freeRecord() })).toBe(80)
    })

    it("follows the hold as the reserver: as long as it has lasted, at least a share of a poll", () => {
      const reserved = { reservedBy: "me", reservedUntil: 8_200, reservedSince: 1_000 }
      // Held for 1 s so far: the usual poll is sooner.
      expect(Reservation.sleepMs({ ...base, record: lockRecord({ ...reserved, acquiredAt: 7_000 }) })).toBe(80)
      // Held for 20 ms: sleep that long.
      expect(Reservation.sleepMs({ ...base, record: lockRecord({ ...reserved, acquiredAt: 7_980 }) })).toBe(20)
      // Just acquired, or when unknown: the floor, an eighth of the poll interval.
      expect(Reservation.sleepMs({ ...base, record: lockRecord({ ...reserved, acquiredAt: 8_000 }) })).toBe(12.5)
      expect(Reservation.sleepMs({ ...base, record: lockRecord({ ...reserved, acquiredAt: undefined }) })).toBe(12.5)
    })

    it("polls slower behind someone else's live reservation, no longer than it lasts", () => {
      const behind = { reservedBy: "third", reservedSince: 1_000 }
      expect(Reservation.sleepMs({ ...base, record: lockRecord({ ...behind, reservedUntil: 9_000 }) })).toBe(160)
      expect(Reservation.sleepMs({ ...base, record: lockRecord({ ...behind, reservedUntil: 8_050 }) })).toBe(51)
      expect(
        Reservation.sleepMs({ ...base, record: lockRecord({ ...behind, reservedUntil: 9_000 }), untilTakeoverMs: 40 })
      )
        .toBe(40)
      // A takeover time already past does not make it spin.
      expect(
        Reservation.sleepMs({ ...base, record: lockRecord({ ...behind, reservedUntil: 9_000 }), untilTakeoverMs: -5 })
      )
        .toBe(160)
    })
  })
})
