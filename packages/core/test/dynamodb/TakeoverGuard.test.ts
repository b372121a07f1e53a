import { describe, expect, it } from "vitest"
import * as ClockSkew from "../../src/dynamodb/ClockSkew.js"
import * as TakeoverGuard from "../../src/dynamodb/TakeoverGuard.js"
import type { LockRecord } from "../../src/record/LockRecord.js"

const server = Date.parse("Thu, 01 Jan 2026 00:00:00 GMT")
const date = new Date(server).toUTCString()

describe("ClockSkew", () => {
  it("measures the provable skew only, and half the bound is too much", () => {
    expect(ClockSkew.measure(server + 100, server + 900, 0, date)?.skewMs).toBe(0)
    const behind = ClockSkew.measure(server - 5_000, server - 4_000, 0, date)!
    expect(behind).toMatchObject({ skewMs: 4_000, localAhead: false, simulated: false })
    expect(ClockSkew.tooSkewed(behind, 8_000)).toBe(false)
    expect(ClockSkew.tooSkewed(behind, 7_999)).toBe(true)
    expect(ClockSkew.measure(0, 1, 0, "not a date")).toBeUndefined()
  })

  it("counts an estimate stale once wall and monotonic time part by more than the tolerance", () => {
    const estimate = ClockSkew.measure(server, server + 10, 5_000, date)!
    expect(ClockSkew.isStale(estimate, server + 10 + ClockSkew.staleToleranceMs, 5_000)).toBe(false)
    expect(ClockSkew.isStale(estimate, server + 11 + ClockSkew.staleToleranceMs, 5_000)).toBe(true)
    expect(ClockSkew.monotonicMillis(2_500_000n)).toBe(2.5)
  })
})

const holder: LockRecord = {
  name: "n",
  owner: "o",
  holder: "worker",
  leaseUntil: server,
  leaseMs: 1_000,
  fence: 1,
  version: 1,
  sequence: 0,
  acquiredAt: server - 1_000,
  data: undefined,
  reservedBy: undefined,
  reservedUntil: 0,
  reservedSince: 0,
  reservedFrom: 0
}

describe("TakeoverGuard", () => {
  const agreeing = ClockSkew.measure(server, server + 10, 0, date)!
  const skewed = ClockSkew.measure(server - 5_000, server - 4_000, 0, date)!

  it("trusts a fresh, close estimate only, and reads the monotonic clock only then", () => {
    let reads = 0
    const monotonic = () => {
      reads++
      return 0
    }
    expect(TakeoverGuard.trusts(undefined, 1_000, server, monotonic)).toBe(false)
    expect(TakeoverGuard.trusts(skewed, 1_000, server, monotonic)).toBe(false)
    expect(reads).toBe(0)
    expect(TakeoverGuard.trusts(agreeing, 1_000, server + 10, monotonic)).toBe(true)
    expect(TakeoverGuard.trusts(agreeing, 1_000, server + 1_000, monotonic)).toBe(false)
    expect(reads).toBe(2)
  })

  it("judges the measured estimate: take over, stale, or too skewed", () => {
    expect(TakeoverGuard.judge(undefined, 1_000, () => 0, () => 0)).toEqual({ _tag: "TakeOver" })
    expect(TakeoverGuard.judge(agreeing, 1_000, () => server + 10, () => 0)).toEqual({ _tag: "TakeOver" })
    const stale = TakeoverGuard.judge(agreeing, 1_000, () => server + 5_010, () => 0)
    expect(stale).toMatchObject({ _tag: "Stale", driftMs: 5_000 })
    const tooSkewed = TakeoverGuard.judge(skewed, 1_000, () => server - 4_000, () => 0)
    expect(tooSkewed).toMatchObject({ _tag: "TooSkewed", maxClockSkewMs: 1_000 })
    if (tooSkewed._tag === "TakeOver" || stale._tag === "TakeOver") return
    expect(TakeoverGuard.lockRefusal(tooSkewed, "n", holder)).toContain(
      "refusing to take over lock \"n\" from worker (owner o, lease until 2026-01-01T00:00:00.000Z) on this " +
        "process's clock: the local clock is at least 4000 ms behind DynamoDB's"
    )
    expect(TakeoverGuard.lockRefusal(stale, "n", holder)).toContain("the wall clock moved 5000 ms")
    expect(TakeoverGuard.semaphoreRefusal(stale, "s", [{ owner: "a", permits: 1, version: 1 }])).toContain(
      "refusing to remove the expired holders of semaphore \"s\" (owners a) on this process's clock: the wall " +
        "clock moved 5000 ms"
    )
  })

  it("takes over only a held lease past its time and the bound", () => {
    expect(TakeoverGuard.isExpiredLease(holder, server + 101, 100)).toBe(true)
    expect(TakeoverGuard.isExpiredLease(holder, server + 100, 100)).toBe(false)
    expect(TakeoverGuard.isExpiredLease({ ...holder, owner: undefined }, server + 1_000, 0)).toBe(false)
  })
})
