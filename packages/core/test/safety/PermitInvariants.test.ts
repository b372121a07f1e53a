import { describe, expect, it } from "vitest"
import * as PermitInvariants from "../../src/safety/PermitInvariants.js"
import { history, section } from "./fixtures.js"

const holder = (index: number, fence: number, start: number, end: number, permits: number) =>
  section(index, { fence, start, end, permits, limit: 3, requestedAt: start })

describe("PermitInvariants", () => {
  it("holders within the limit at every start break nothing; one more permit than the limit is caught", () => {
    const within = [holder(0, 1, 0, 300, 2), holder(1, 2, 100, 200, 1)]
    expect(PermitInvariants.permitLimit(history({ sections: within }), within)).toEqual([])
    const over = [holder(0, 1, 0, 300, 2), holder(1, 2, 100, 200, 2)]
    expect(PermitInvariants.permitLimit(history({ sections: over }), over)).toEqual([{
      invariant: "permitLimit",
      message: `semaphore "a" (limit 3): 4 permits held at 100, when p2#1 (2 permits, fence 2) started while ` +
        "p1#0 (2 permits, fence 1) [0, 300] ran"
    }])
  })

  it("a holder that ends at an instant no longer runs at it", () => {
    const handover = [holder(0, 1, 0, 100, 3), holder(1, 2, 100, 200, 3)]
    expect(PermitInvariants.permitLimit(history({ sections: handover }), handover)).toEqual([])
  })

  it("every acquisition has a fence of its own, and a later call a greater one", () => {
    const same = [holder(0, 4, 0, 100, 1), holder(1, 4, 50, 150, 1)]
    expect(PermitInvariants.permitFences(same).map((f) => f.message)).toEqual([
      `semaphore "a": p2#1 (1 permits, fence 4) got the fence of p1#0 (1 permits, fence 4)`,
      `semaphore "a": p2#1 (1 permits, fence 4), called at 50, after p1#0 (1 permits, fence 4) had acquired at 0, ` +
      "got a fence not above it"
    ])
    const none = [section(0, { start: 0, end: 10, permits: 1, limit: 1 })]
    expect(PermitInvariants.permitFences(none)).toEqual([
      { invariant: "permitFences", message: `semaphore "a": p1#0 (1 permits, fence undefined) ran with no fence` }
    ])
  })
})
