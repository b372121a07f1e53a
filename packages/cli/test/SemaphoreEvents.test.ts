import { describe, expect, it } from "@effect/vitest"
import type { PermitHolder, SemaphoreRecord } from "@leasehold/lock/SemaphoreRecord"
import * as Render from "../src/Render.js"
import * as SemaphoreEvents from "../src/SemaphoreEvents.js"

const now = 1_000_000

const holder = (owner: string, fields: Partial<PermitHolder> = {}): PermitHolder => ({
  owner,
  holder: `h-${owner}`,
  permits: 1,
  fence: 1,
  leaseUntil: now + 30_000,
  leaseMs: 30_000,
  version: 1,
  sequence: 0,
  acquiredAt: now - 5_000,
  data: undefined,
  ...fields
})

const semaphore = (name: string, holders: ReadonlyArray<PermitHolder>, limit = 4): SemaphoreRecord => ({
  name,
  limit,
  fence: Math.max(0, ...holders.map((h) => h.fence)),
  used: holders.reduce((sum, h) => sum + h.permits, 0),
  holders
})

const snapshot = (...records: Array<SemaphoreRecord>) =>
  new Map(records.map((r) => [r.name, Render.semaphoreView(r, now, 10_000)] as const))

const tags = (before: ReturnType<typeof snapshot>, after: ReturnType<typeof snapshot>) =>
  SemaphoreEvents.diff(before, after).map((event) => `${event._tag} ${event.name} ${event.owner}`)

describe("SemaphoreEvents.diff", () => {
  it("reports holders that come and go, per semaphore in name order, the gone before the new", () => {
    const before = snapshot(semaphore("b", [holder("o1"), holder("o2", { fence: 2 })]), semaphore("a", [holder("o3")]))
    const after = snapshot(
      semaphore("b", [holder("o2", { fence: 2 }), holder("o4", { fence: 3, permits: 2 })]),
      semaphore("a", []),
      semaphore("c", [holder("o5")])
    )
    expect(tags(before, after)).toEqual(["Released a o3", "Released b o1", "Acquired b o4", "Acquired c o5"])
    const acquired = SemaphoreEvents.diff(before, after).find((event) => event.owner === "o4")
    expect(acquired?.text).toBe("acquired 2 permits of semaphore \"b\" by h-o4 (fence 3); 3 of 4 in use")
  })

  it("says when a holder gone had let its lease run out", () => {
    const before = snapshot(semaphore("a", [holder("o1", { leaseUntil: now - 1 })]))
    const [event] = SemaphoreEvents.diff(before, snapshot(semaphore("a", [])))
    expect(event?.text).toBe(
      "released 1 permit of semaphore \"a\" (was h-o1 (fence 1), whose lease had run out); 0 of 4 in use"
    )
  })

  it("reports a holder's lease running late once, then running out, then renewed", () => {
    const fresh = snapshot(semaphore("a", [holder("o1")]))
    const late = snapshot(semaphore("a", [holder("o1", { leaseUntil: now + 5_000 })]))
    const out = snapshot(semaphore("a", [holder("o1", { leaseUntil: now - 1 })]))
    expect(tags(fresh, late)).toEqual(["Expiring a o1"])
    expect(tags(late, late)).toEqual([])
    expect(tags(late, out)).toEqual(["Expired a o1"])
    expect(tags(out, fresh)).toEqual(["Renewed a o1"])
    expect(tags(fresh, fresh)).toEqual([])
  })
})
