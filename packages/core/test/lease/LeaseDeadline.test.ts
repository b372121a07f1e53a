import { describe, expect, it } from "vitest"
import * as LeaseDeadline from "../../src/lease/LeaseDeadline.js"

const options = { leaseMs: 3_000, safetyMarginMs: 300 }

describe("LeaseDeadline", () => {
  it("counts lease - safety margin from just before the write was sent", () => {
    expect(LeaseDeadline.fromSend(options, 1_000)).toBe(3_700)
    expect(LeaseDeadline.isInTime(options, 1_000, 3_699)).toBe(true)
    expect(LeaseDeadline.isInTime(options, 1_000, 3_700)).toBe(false)
  })

  describe("renewed", () => {
    it("moves the deadline later with a renew answered in time", () => {
      expect(LeaseDeadline.renewed({ options, deadline: 3_700, finished: false, sentAt: 2_000, now: 2_050 }))
        .toEqual({ _tag: "Extended", deadline: 4_700 })
    })

    it("never moves the deadline earlier", () => {
      expect(LeaseDeadline.renewed({ options, deadline: 9_000, finished: false, sentAt: 2_000, now: 2_050 }))
        .toEqual({ _tag: "Extended", deadline: 9_000 })
    })

    it("takes nothing from a renew answered at its own deadline, or after the lease ended", () => {
      expect(LeaseDeadline.renewed({ options, deadline: 3_700, finished: false, sentAt: 2_000, now: 4_700 }))
        .toEqual({ _tag: "TooLate" })
      expect(LeaseDeadline.renewed({ options, deadline: 3_700, finished: true, sentAt: 2_000, now: 2_050 }))
        .toEqual({ _tag: "TooLate" })
    })
  })

  it("is past at the deadline", () => {
    expect(LeaseDeadline.isPast(3_700, 3_699)).toBe(false)
    expect(LeaseDeadline.isPast(3_700, 3_700)).toBe(true)
  })

  it("releases a lost lease only if it expired here while the store may still hold it", () => {
    expect(LeaseDeadline.isStoreLeaseOver(3_700, 300, 3_999)).toBe(false)
    expect(LeaseDeadline.isStoreLeaseOver(3_700, 300, 4_000)).toBe(true)
    expect(LeaseDeadline.releasesAfterLoss("expired")).toBe(true)
    expect(LeaseDeadline.releasesAfterLoss("stolen")).toBe(false)
    expect(LeaseDeadline.releasesAfterLoss("freed")).toBe(false)
  })

  it("puts the end of the lease on the wall clock as it reads now", () => {
    // Deadline 3.7 s monotonic, read at 2 s monotonic = 50 s wall: the lease runs out at 50 + 1.7 + 0.3 s.
    expect(LeaseDeadline.wallLeaseUntil(3_700, 300, 2_000, 50_000)).toBe(52_000)
  })
})
