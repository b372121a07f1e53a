import { describe, expect, it } from "vitest"
import { formatHistory } from "../../src/safety/FormatHistory.js"
import { history, schedule, section, write } from "./fixtures.js"

describe("FormatHistory.formatHistory", () => {
  it("prints the schedule, then the events in true-time order, ties in the order they were found", () => {
    const text = formatHistory(history({
      schedule: schedule({
        processes: [{ id: "p1", offsetMs: 12, pauses: [{ at: 50, ms: 30 }] }],
        sections: [{
          process: "p1",
          name: "a",
          at: 0,
          steps: 1,
          stepMs: 100,
          wait: 500,
          api: "acquireInTimeout",
          timeoutMs: 700,
          badOption: "heartbeatNegative"
        }],
        faults: [{ operation: "renew", nth: 2, fault: { kind: "lateTimeout", ms: 90, giveUpMs: 10 } }],
        steals: [{ at: 70, name: "a" }]
      }),
      sections: [section(0, { process: "p1", fence: 4, start: 0, end: 100, leaseStatus: "Held" })],
      writes: [write({ at: 0, fence: 4 }), write({ at: 100, fence: 4, accepted: false, highestBefore: 5 })],
      steals: [{ at: 70, name: "a", fence: undefined, holder: undefined }]
    }))
    expect(text.split("\n")).toEqual([
      "schedule seed=1 mode=safe takeover=absolute lease=2000ms heartbeat=600ms safetyMargin=400ms maxClockSkew=1000ms",
      "  process p1: clock offset 12 ms; pauses 50+30ms",
      `  section #0: p1 "a" at 0 via acquireInTimeout(700 ms), wait 500, 1 x 100 ms, bad option heartbeat: -600`,
      "  fault: any renew #2: lateTimeout 90ms (sender gives up at 10ms)",
      `  operator: force release of "a" at 70`,
      "history (true ms):",
      `       0  p1#0 enters "a" with fence 4`,
      `       0  section #0 writes "a" fence 4: accepted`,
      "      50  p1 pauses for 30 ms",
      `      70  operator force-releases "a": nothing held`,
      "      80  p1 resumes",
      `     100  section #0 writes "a" fence 4: REJECTED (stale)`,
      `     100  p1#0 leaves "a": completed (lease Held)`
    ])
  })

  it("shows semaphores, children, late deliveries and uses that never acquired", () => {
    const text = formatHistory(history({
      sections: [
        section(0, { process: "p1", fence: 2, start: 10, end: 20, permits: 2, limit: 3, tookOver: 1 }),
        section(1, { process: "p2", outcome: "notAcquired", finishedAt: 40, detail: "gave up\nafter a while" })
      ],
      writes: [write({ at: 10, fence: 2, permits: 2, by: 5 })],
      deliveries: [{
        call: { process: "p1", operation: "release", nth: 0 },
        fault: { kind: "lateHang", ms: 5 },
        name: "a",
        fence: undefined,
        semaphore: false,
        sentAt: 1,
        at: 30,
        outcome: "NotHeld",
        after: ["laterWrite", "acquired"]
      }]
    }))
    const events = text.split("history (true ms):\n")[1]!.split("\n")
    expect(events).toEqual([
      `      10  p1#0 enters semaphore "a" with fence 2 and 2 of 3 permits, removing 1 permits of holders whose leases ` +
      "were over",
      `      10  child #5 (for section #0) writes under 2 permits of semaphore "a", fence 2`,
      `      20  p1#0 leaves semaphore "a": completed`,
      `      30  p1 release #0 (a give-back) of "a", sent at 1, delivered late (lateHang): NotHeld; since then its ` +
      "sender wrote again, acquired",
      `      40  p2#1 gives up on "a": notAcquired - gave up`
    ])
  })
})
