/**
 * Where a lease stands at the CLI's clock: held, expiring within the skew bound after it ran out (no acquirer takes
 * it over yet), expired after that, on the boundary the library's takeover rule draws.
 */
import { describe, expect, it } from "@effect/vitest"
import * as LockRecord from "@leasehold/core/record/LockRecord"
import * as SemaphoreRecord from "@leasehold/core/record/SemaphoreRecord"
import * as LeaseSession from "@leasehold/core/session/LeaseSession"
import * as Render from "../src/Render.js"

const now = 1_800_000_000_000
const skew = 10_000

const lock = (fields: Partial<LockRecord.LockRecord> = {}): LockRecord.LockRecord => ({
  name: "orders/42",
  owner: "o1",
  holder: "worker-a",
  leaseUntil: now + 12_300,
  leaseMs: 30_000,
  fence: 7,
  version: 3,
  sequence: 2,
  acquiredAt: now - 300_000,
  data: undefined,
  reservedBy: undefined,
  reservedUntil: 0,
  reservedSince: 0,
  reservedFrom: 0,
  ...fields
})

const holder = (fields: Partial<SemaphoreRecord.PermitHolder> = {}): SemaphoreRecord.PermitHolder => ({
  owner: "o1",
  holder: "worker-a",
  permits: 1,
  fence: 1,
  leaseUntil: now + 12_300,
  leaseMs: 30_000,
  version: 1,
  sequence: 0,
  acquiredAt: now - 5_000,
  data: undefined,
  ...fields
})

describe("Render: a lease's state", () => {
  it("a holder that died 32 s after its lease's end is expired, and says how long ago", () => {
    const view = Render.view(lock({ leaseUntil: now - 32_000 }), now, skew)
    expect(view).toMatchObject({
      held: true,
      state: "expired",
      expired: true,
      leaseRemainingMs: -32_000,
      takeoverAt: new Date(now - 22_000).toISOString(),
      takeoverInMs: -22_000
    })
    expect(Render.lease(view)).toBe("expired 32.0s ago")
    expect(Render.lockRow(view)).toEqual(["orders/42", "worker-a", "7", "expired 32.0s ago", "5m00s"])
    expect(Render.lockLine(view)).toBe(
      "name=\"orders/42\" holder=\"worker-a\" fence=7 remaining=ran_out_32.0s_ago state=expired"
    )
  })

  it("within the skew bound after its end a lease is expiring: not yet free to take over, and says when it is", () => {
    const view = Render.view(lock({ leaseUntil: now - 3_000 }), now, skew)
    expect(view).toMatchObject({ state: "expiring", expired: true, takeoverInMs: 7_000 })
    expect(Render.lease(view)).toBe("expiring: ran out 3.0s ago, can be taken over in 7.0s")
  })

  it("held, expiring and expired meet where the library's takeover rule says: after leaseUntil + maxClockSkew", () => {
    const at = (leaseUntil: number, maxClockSkewMs = skew) =>
      Render.view(lock({ leaseUntil }), now, maxClockSkewMs).state
    expect(at(now)).toBe("held")
    expect(at(now - 1)).toBe("expiring")
    expect(at(now - skew)).toBe("expiring")
    expect(at(now - skew - 1)).toBe("expired")
    expect(at(now - 1, 0)).toBe("expired")
    // The same rule as the library's, at each of those points.
    for (const leaseUntil of [now, now - 1, now - skew, now - skew - 1]) {
      expect(at(leaseUntil) === "expired").toBe(LockRecord.isAvailableAt(lock({ leaseUntil }), now, skew))
    }
  })

  it("a running lease shows what is left; a free lock shows none", () => {
    const held = Render.view(lock(), now, skew)
    expect(held).toMatchObject({ state: "held", expired: false, leaseRemainingMs: 12_300 })
    expect(Render.lease(held)).toBe("12.3s left")
    const free = Render.view(
      lock({ owner: undefined, holder: undefined, leaseUntil: 0, acquiredAt: undefined }),
      now,
      skew
    )
    expect(free).toMatchObject({ held: false, state: "free", expired: false, takeoverAt: null, takeoverInMs: null })
    expect(Render.lease(free)).toBe("-")
    expect(Render.lockRow(free)).toEqual(["orders/42", "(free)", "7", "-", "-"])
  })

  it("a semaphore's holders are judged by the same rule, each in its own state", () => {
    const record: SemaphoreRecord.SemaphoreRecord = {
      name: "partner-api",
      limit: 4,
      used: 3,
      fence: 3,
      holders: [
        holder({ owner: "o1", holder: "live" }),
        holder({ owner: "o2", holder: "late", leaseUntil: now - 4_000, fence: 2 }),
        holder({ owner: "o3", holder: "dead", leaseUntil: now - 32_000, fence: 3 })
      ]
    }
    const view = Render.semaphoreView(record, now, skew)
    expect(view.holders.map((h) => [h.holder, h.state, h.expired])).toEqual([
      ["live", "held", false],
      ["late", "expiring", true],
      ["dead", "expired", true]
    ])
    for (const h of record.holders) {
      const shown = view.holders.find((v) => v.owner === h.owner)
      expect(shown?.state === "expired").toBe(SemaphoreRecord.isExpiredAt(h, now, skew))
    }
    expect(Render.holders(view)).toBe("live (1), late (1, expiring), dead (1, expired)")
    expect(view.holders.map(Render.lease)).toEqual([
      "12.3s left",
      "expiring: ran out 4.0s ago, can be taken over in 6.0s",
      "expired 32.0s ago"
    ])
  })

  it("a read/write lock's record shows each holder's mode, the marker and the reservation; a semaphore's shows none", () => {
    const writer = holder({ owner: "w", holder: "migrator", permits: 64, fence: 9 })
    const reservation = {
      reservedBy: "r",
      reservedPermits: 1,
      reservedUntil: now + 400,
      reservedSince: now - 300,
      reservedFrom: now + 100
    }
    const record: SemaphoreRecord.SemaphoreRecord = {
      name: "schema",
      limit: 64,
      used: 64,
      fence: 9,
      holders: [writer],
      readWrite: true,
      reservation
    }
    const view = Render.semaphoreView(record, now, skew)
    expect(view.readWrite).toBe(true)
    expect(view.holders.map((h) => h.mode)).toEqual(["write"])
    expect(Render.holders(view)).toBe("migrator (write)")
    expect(Render.semaphoreRow(view)[0]).toBe("schema (read/write)")
    expect(Render.permitHolderRow(view.holders[0]!)[2]).toBe("64 (write)")
    expect(view.reservation).toEqual({
      owner: "r",
      permits: 1,
      until: new Date(now + 400).toISOString(),
      from: new Date(now + 100).toISOString(),
      waitingSince: new Date(now - 300).toISOString()
    })
    const readers = Render.semaphoreView(
      {
        ...record,
        used: 2,
        holders: [holder({ owner: "a", holder: "web-1" }), holder({ owner: "b", holder: "web-2" })]
      },
      now,
      skew
    )
    expect(Render.holders(readers)).toBe("web-1 (read), web-2 (read)")
    // The same record without the marker is a semaphore's: permits, not modes.
    const plain = Render.semaphoreView({ ...record, readWrite: undefined, reservation: undefined }, now, skew)
    expect(plain).toMatchObject({ readWrite: false, reservation: null })
    expect(Render.holders(plain)).toBe("migrator (64)")
    expect(Render.semaphoreLine(view)).toContain("readWrite=true")
  })

  it("--held keeps every lock with a holder, expired ones too; --expired only those whose lease ran out", () => {
    const listing: Render.Listing = {
      locks: [
        Render.view(lock({ name: "live" }), now, skew),
        Render.view(lock({ name: "late", leaseUntil: now - 3_000 }), now, skew),
        Render.view(lock({ name: "dead", leaseUntil: now - 32_000 }), now, skew),
        Render.view(lock({ name: "free", owner: undefined, holder: undefined, leaseUntil: 0 }), now, skew)
      ],
      semaphores: [
        Render.semaphoreView({ name: "ok", limit: 2, used: 1, fence: 1, holders: [holder()] }, now, skew),
        Render.semaphoreView(
          { name: "stale", limit: 2, used: 1, fence: 1, holders: [holder({ leaseUntil: now - 32_000 })] },
          now,
          skew
        ),
        Render.semaphoreView({ name: "empty", limit: 2, used: 0, fence: 1, holders: [] }, now, skew)
      ]
    }
    const names = (shown: Render.Listing) => [shown.locks.map((l) => l.name), shown.semaphores.map((s) => s.name)]
    expect(names(Render.held(listing))).toEqual([["live", "late", "dead"], ["ok", "stale"]])
    expect(names(Render.expired(listing))).toEqual([["late", "dead"], ["stale"]])
  })
})

describe("a lock under a lease session", () => {
  const under = lock({ leaseUntil: LeaseSession.heldUntil, leaseMs: LeaseSession.heldUntil, session: "s1" })
  const session = lock({ name: LeaseSession.recordName("s1"), owner: "s1", leaseUntil: now + 4_000, leaseMs: 30_000 })

  it("takes its lease from the session's record, and names the session", () => {
    const view = Render.view(under, now, skew, { record: session })
    expect([view.session, view.state, view.leaseRemainingMs, view.sessionEnded]).toEqual(["s1", "held", 4_000, false])
    expect(Render.lease(view)).toBe("4.0s left")
  })

  it("is the next acquirer's once its session ended, and says nothing of a lease it has not read", () => {
    const ended = Render.view(under, now, skew, { record: undefined })
    expect([ended.state, ended.expired, ended.sessionEnded]).toEqual(["expired", true, true])
    expect(Render.lease(ended)).toContain("its session s1 ended")
    const unread = Render.view(under, now, skew)
    expect([unread.state, unread.leaseUntil, Render.lease(unread)]).toEqual(["held", null, "under session s1"])
  })

  it("in a listing, finds its session's record on the same page", () => {
    const items = [{ _tag: "Lock", record: under }, { _tag: "Lock", record: session }] as const
    const listed = Render.listing(items, now, skew).locks.find((l) => l.name === under.name)!
    expect([listed.session, listed.leaseRemainingMs]).toEqual(["s1", 4_000])
  })
})

describe("semaphore permits under a lease session", () => {
  const under = holder({ leaseUntil: LeaseSession.heldUntil, leaseMs: LeaseSession.heldUntil, session: "s1" })
  const session = lock({ name: LeaseSession.recordName("s1"), owner: "s1", leaseUntil: now + 4_000, leaseMs: 30_000 })

  it("take their lease from the session's record, or say the session ended, or that it was not read", () => {
    const live = Render.permitHolderView(under, now, skew, new Map([["s1", session]]))
    expect([live.session, live.state, live.leaseRemainingMs, Render.lease(live)]).toEqual([
      "s1",
      "held",
      4_000,
      "4.0s left"
    ])
    const ended = Render.permitHolderView(under, now, skew, new Map([["s1", undefined]]))
    expect([ended.state, ended.sessionEnded]).toEqual(["expired", true])
    const unread = Render.permitHolderView(under, now, skew)
    expect([unread.leaseUntil, Render.lease(unread)]).toEqual([null, "under session s1"])
    // A holder on a lease of its own names no session.
    expect(Render.permitHolderView(holder(), now, skew).session).toBeNull()
  })

  it("in a listing, find their session's record on the same page", () => {
    const semaphore = { name: "pool", limit: 2, used: 1, fence: 3, holders: [under] }
    const items = [{ _tag: "Semaphore", record: semaphore }, { _tag: "Lock", record: session }] as const
    const listed = Render.listing(items, now, skew).semaphores[0]!.holders[0]!
    expect([listed.session, listed.leaseRemainingMs]).toEqual(["s1", 4_000])
  })
})
