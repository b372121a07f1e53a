import { describe, expect, it } from "@effect/vitest"
import type { LockRecord } from "@leasehold/lock/LockRecord"
import * as LockEvents from "../src/LockEvents.js"
import * as Render from "../src/Render.js"
import * as WatchCommand from "../src/WatchCommand.js"

const now = 1_000_000

const record = (name: string, fields: Partial<LockRecord> = {}): LockRecord => ({
  name,
  owner: "o1",
  holder: "h1",
  leaseUntil: now + 30_000,
  leaseMs: 30_000,
  fence: 1,
  version: 1,
  sequence: 0,
  acquiredAt: now - 5_000,
  data: undefined,
  reservedBy: undefined,
  reservedUntil: 0,
  reservedSince: 0,
  reservedFrom: 0,
  ...fields
})

const snapshot = (...records: Array<LockRecord>) =>
  new Map(records.map((r) => [r.name, Render.view(r, now, 10_000)] as const))

const tags = (before: ReturnType<typeof snapshot>, after: ReturnType<typeof snapshot>) =>
  LockEvents.diff(before, after).map((event) => `${event._tag} ${event.name}`)

describe("LockEvents.diff", () => {
  it("reports acquisitions, releases and takeovers", () => {
    const before = snapshot(
      record("a"),
      record("b", { leaseUntil: now - 10_000 }),
      record("c", { owner: undefined, holder: undefined })
    )
    const after = snapshot(
      record("a", { owner: undefined, holder: undefined }),
      record("b", { owner: "o2", holder: "h2", fence: 2, acquiredAt: now - 5_000 }),
      record("c", { owner: "o3", fence: 2 }),
      record("d")
    )
    expect(tags(before, after)).toEqual(["Released a", "Takeover b", "Acquired c", "Acquired d"])
  })

  it("reports a lock given up and acquired again between two looks as a release and an acquisition", () => {
    // One process's two fibers, one after the other: the same holder, a new owner id and fence, and the new lease
    // began while the old one still ran, so nobody took anything over.
    const before = snapshot(record("a", { holder: "pid 7", owner: "o1", fence: 1, acquiredAt: now - 9_000 }))
    const after = snapshot(record("a", { holder: "pid 7", owner: "o2", fence: 2, acquiredAt: now - 4_000 }))
    expect(LockEvents.diff(before, after).map((event) => event.text)).toEqual([
      "released \"a\" (was pid 7 (fence 1))",
      "acquired \"a\" by pid 7 (fence 2)"
    ])
  })

  it("reports a takeover when the new lease began after the old one ran out, though no look saw it run out", () => {
    const before = snapshot(record("a", { leaseUntil: now + 1_000 }))
    const after = snapshot(record("a", { owner: "o2", holder: "h2", fence: 2, acquiredAt: now + 1_500 }))
    expect(tags(before, after)).toEqual(["Takeover a"])
  })

  it("reports a lease resumed under a new owner id with its fence as handed over, not as a new acquisition", () => {
    const before = snapshot(record("a", { owner: "o1", fence: 3 }))
    const after = snapshot(record("a", { owner: "o2", fence: 3 }))
    expect(tags(before, after)).toEqual(["HandedOver a"])
  })

  it("reports a lease running late once, then running out, then renewed", () => {
    const fresh = snapshot(record("a"))
    const late = snapshot(record("a", { leaseUntil: now + 5_000 }))
    const out = snapshot(record("a", { leaseUntil: now - 1 }))
    expect(tags(fresh, late)).toEqual(["Expiring a"])
    expect(LockEvents.diff(fresh, late)[0]?.text).toBe(
      "lease of \"a\" running late: 5.0s left, h1 (fence 1) is late renewing"
    )
    expect(tags(late, late)).toEqual([])
    expect(tags(late, out)).toEqual(["Expired a"])
    expect(tags(out, fresh)).toEqual(["Renewed a"])
  })

  it("says a takeover came after the lease ran out", () => {
    const [event] = LockEvents.diff(
      snapshot(record("a", { leaseUntil: now - 1 })),
      snapshot(record("a", { owner: "o2", holder: "h2", fence: 2 }))
    )
    expect(event?.text).toContain("after its lease ran out")
  })
})

describe("Render", () => {
  it("formats durations for people", () => {
    expect([850, 12_340, 245_000, 7_380_000, 273_600_000].map(Render.duration)).toEqual([
      "850ms",
      "12.3s",
      "4m05s",
      "2h03m",
      "3d04h"
    ])
  })

  it("pretty-prints JSON data and leaves other data as it is", () => {
    expect(Render.data("{\"a\":1}")).toBe("{\n  \"a\": 1\n}")
    expect(Render.data("not json")).toBe("not json")
  })
})

describe("WatchCommand.parseInterval", () => {
  it("accepts units and bare seconds, rejects the rest", () => {
    const ms = (text: string) => WatchCommand.parseInterval(text).pipe((o) => (o._tag === "Some" ? o.value : undefined))
    expect(ms("500ms")?.toString()).toBe(ms("0.5")?.toString())
    expect(ms("2s")?.toString()).toBe(ms("2 seconds")?.toString())
    expect(ms("1m")?.toString()).toBe(ms("60")?.toString())
    expect(ms("soon")).toBeUndefined()
    expect(ms("0s")).toBeUndefined()
  })
})
