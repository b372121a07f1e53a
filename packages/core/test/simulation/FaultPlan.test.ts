import { describe, expect, it } from "vitest"
import * as Fault from "../../src/simulation/Fault.js"
import * as FaultPlan from "../../src/simulation/FaultPlan.js"

describe("FaultPlan", () => {
  it("a listed fault hits its call: its process's, or any process's when none is named", () => {
    const plan = FaultPlan.fromList([
      { process: "p1", operation: "renew", nth: 1, fault: { kind: "fatal" } },
      { operation: "release", nth: 0, fault: { kind: "latency", ms: 5 } }
    ])
    expect(plan({ process: "p1", operation: "renew", nth: 1 })).toEqual({ kind: "fatal" })
    expect(plan({ process: "p2", operation: "renew", nth: 1 })).toBeUndefined()
    expect(plan({ process: "p1", operation: "renew", nth: 0 })).toBeUndefined()
    expect(plan({ process: "p9", operation: "release", nth: 0 })).toEqual({ kind: "latency", ms: 5 })
  })

  it("a random plan depends on the call alone, keeps to its kinds and delays, and gives a late sender up in time", () => {
    const plan = FaultPlan.random({ seed: 3, rate: 0.5, kinds: ["lateTimeout", "hang"], maxMs: 50 })
    const calls = Array.from({ length: 200 }, (_, nth) => ({ process: "p1", operation: "renew" as const, nth }))
    const faults = calls.map(plan)
    expect([...calls].reverse().map(plan)).toEqual([...faults].reverse())
    const hit = faults.filter((f) => f !== undefined)
    expect(hit.length).toBeGreaterThan(50)
    expect(hit.length).toBeLessThan(150)
    for (const f of hit) {
      expect(["lateTimeout", "hang"]).toContain(f.kind)
      expect(f.ms).toBeGreaterThanOrEqual(1)
      expect(f.ms).toBeLessThanOrEqual(50)
      if (f.kind === "lateTimeout") expect(f.giveUpMs).toBeLessThan(f.ms!)
    }
    expect(FaultPlan.random({ seed: 3, rate: 0 })(calls[0]!)).toBeUndefined()
    expect(FaultPlan.random({ seed: 3, rate: 1, kinds: [] })(calls[0]!)).toBeUndefined()
  })

  it("knows which operations acquire and which write to a semaphore", () => {
    expect(Fault.kinds.filter(Fault.isLate)).toEqual(Fault.lateKinds)
    expect(Fault.isAcquire("tryAcquirePermits")).toBe(true)
    expect(Fault.isAcquire("renew")).toBe(false)
    expect(Fault.isPermitOperation("releasePermits")).toBe(true)
    expect(Fault.isPermitOperation("reservePermits")).toBe(true)
    expect(Fault.isPermitOperation("reserve")).toBe(false)
    expect(Fault.isPermitOperation("inspectSemaphore")).toBe(false)
  })
})
