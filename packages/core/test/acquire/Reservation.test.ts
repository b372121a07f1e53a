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

  it("keeps others out a turn (a poll interval) after a reservation of a held lock, at once on a free one", () => {
    expect(Reservation.turnMs(options)).toBe(100)
    expect(Reservation.graceMs(options, lockRecord(), 1_000)).toBe(100)
    expect(Reservation.graceMs(options, freeRecord(), 1_000)).toBe(0)
  })

  it("never makes a turn longer when it refreshes or takes over a live reservation: it keeps that one's start", () => {
    const live = { reservedBy: "other", reservedUntil: 1_400, reservedSince: 500 }
    expect(Reservation.graceMs(options, lockRecord({ ...live, reservedFrom: 1_030 }), 1_000)).toBe(30)
    expect(Reservation.graceMs(options, lockRecord({ ...live, reservedFrom: 900 }), 1_000)).toBe(0)
    // A lapsed one does not count: a fresh turn.
    expect(Reservation.graceMs(options, lockRecord({ ...live, reservedUntil: 999, reservedFrom: 900 }), 1_000)).toBe(
      100
    )
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
    const base = { options, owner: "me", untilTakeoverMs: 10_000, pollMs: 80, wallNow: 8_000, waitingSince: 1_000 }

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

    it("as the reserver, follows the hold no sooner than its reservation keeps others out, nor later than a poll", () => {
      const reserved = { reservedBy: "me", reservedUntil: 8_300, reservedSince: 1_000, acquiredAt: 7_990 }
      expect(Reservation.sleepMs({ ...base, record: lockRecord({ ...reserved, reservedFrom: 8_050 }) })).toBe(50)
      // Until it keeps others out, though the poll drawn is sooner; no longer than a poll interval.
      expect(Reservation.sleepMs({ ...base, record: lockRecord({ ...reserved, reservedFrom: 8_090 }) })).toBe(90)
      expect(Reservation.sleepMs({ ...base, record: lockRecord({ ...reserved, reservedFrom: 8_200 }) })).toBe(100)
      // From then on, it follows the hold.
      expect(Reservation.sleepMs({ ...base, record: lockRecord({ ...reserved, reservedFrom: 8_000 }) })).toBe(12.5)
      // A hold longer than the time left before it keeps others out: as long as the hold has lasted.
      const long = { ...reserved, acquiredAt: 7_940, reservedFrom: 8_030 }
      expect(Reservation.sleepMs({ ...base, record: lockRecord(long) })).toBe(60)
    })

    it("polls slower behind someone else's live reservation, no longer than it lasts", () => {
      const behind = { reservedBy: "third", reservedSince: 1_000 }
      // Until the reservation keeps others out, and half a poll more: when its reserver should be in.
      expect(Reservation.sleepMs({ ...base, record: lockRecord({ ...behind, reservedUntil: 9_000 }) })).toBe(40)
      const later = { ...behind, reservedUntil: 9_000, reservedFrom: 8_100 }
      expect(Reservation.sleepMs({ ...base, record: lockRecord(later) })).toBe(140)
      // No longer than a reservation lasts (four poll intervals).
      expect(Reservation.sleepMs({ ...base, record: lockRecord({ ...later, reservedFrom: 8_500 }) })).toBe(400)
      expect(
        Reservation.sleepMs({ ...base, record: lockRecord({ ...behind, reservedUntil: 8_050, reservedFrom: 8_040 }) })
      )
        .toBe(51)
      expect(
        Reservation.sleepMs({ ...base, record: lockRecord(later), untilTakeoverMs: 40 })
      )
        .toBe(40)
      // Further back in the line (began to wait 300 ms after the reserver): half that lead.
      expect(
        Reservation.sleepMs({ ...base, waitingSince: 1_300, record: lockRecord({ ...behind, reservedUntil: 9_000 }) })
      )
        .toBe(150)
      // No longer than the reservation lasts.
      expect(
        Reservation.sleepMs({ ...base, waitingSince: 2_000, record: lockRecord({ ...behind, reservedUntil: 9_000 }) })
      )
        .toBe(400)
      // A takeover time already past does not make it spin.
      expect(
        Reservation.sleepMs({ ...base, record: lockRecord({ ...later, reservedFrom: 8_500 }), untilTakeoverMs: -5 })
      )
        .toBe(400)
    })
  })
})
