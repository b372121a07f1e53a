import { describe, expect, it } from "vitest"
import type { LockRecord } from "../../src/record/LockRecord.js"
import * as LeaseSession from "../../src/session/LeaseSession.js"
import type * as LockProtocol from "../../src/store/LockProtocol.js"
import * as LockTransitions from "../../src/store/LockTransitions.js"

const held: LockRecord = {
  name: "orders",
  owner: "owner-a",
  holder: "host-a",
  leaseUntil: 10_000,
  leaseMs: 5_000,
  fence: 41,
  version: 7,
  sequence: 3,
  acquiredAt: 5_000,
  data: "payload",
  reservedBy: undefined,
  reservedUntil: 0,
  reservedSince: 0,
  reservedFrom: 0
}

const free: LockRecord = { ...held, owner: undefined, holder: undefined, leaseUntil: 0, acquiredAt: undefined }

const acquire = (overrides: Partial<LockProtocol.AcquireRequest> = {}): LockProtocol.AcquireRequest => ({
  name: "orders",
  owner: "owner-b",
  holder: "host-b",
  leaseMs: 2_000,
  data: undefined,
  takeover: { _tag: "Absolute", maxClockSkewMs: 500 },
  ...overrides
})

const reservedBy = (owner: string, until: number, since: number): LockRecord => ({
  ...held,
  reservedBy: owner,
  reservedUntil: until,
  reservedSince: since
})

describe("LockTransitions.tryAcquire", () => {
  it("starts a name never seen with a fence from the clock", () => {
    const { next, result } = LockTransitions.tryAcquire(undefined, acquire({ data: "d" }), 1_000)
    expect(result).toEqual({ _tag: "Acquired", record: next })
    expect(next).toEqual({
      name: "orders",
      owner: "owner-b",
      holder: "host-b",
      leaseUntil: 3_000,
      leaseMs: 2_000,
      fence: 1_001,
      version: 1,
      sequence: 0,
      acquiredAt: 1_000,
      data: "d",
      reservedBy: undefined,
      reservedUntil: 0,
      reservedSince: 0,
      reservedFrom: 0
    })
  })

  it("takes a free record with the next fence and version, whatever the clock", () => {
    const { next, result } = LockTransitions.tryAcquire(free, acquire(), 0)
    expect(result._tag).toBe("Acquired")
    expect(next?.fence).toBe(42)
    expect(next?.version).toBe(8)
  })

  it("takes a held lease over only once it is over by more than the skew bound", () => {
    // leaseUntil 10000 + skew 500: still held at 10500, over at 10501.
    const atBound = LockTransitions.tryAcquire(held, acquire(), 10_500)
    expect(atBound).toEqual({ result: { _tag: "Conflict", current: held }, next: undefined })
    const past = LockTransitions.tryAcquire(held, acquire(), 10_501)
    expect(past.result._tag).toBe("Acquired")
    expect(past.next?.fence).toBe(42)
  })

  it("takes over under observed takeover only the record the caller watched go stale", () => {
    const stale = { owner: "owner-a", fence: 41, version: 7 }
    const observed = (s: LockProtocol.StaleObservation | undefined) =>
      acquire({ takeover: { _tag: "Observed", stale: s } })
    expect(LockTransitions.tryAcquire(held, observed(stale), 0).result._tag).toBe("Acquired")
    expect(LockTransitions.tryAcquire(held, observed(undefined), 1e12).result._tag).toBe("Conflict")
    expect(LockTransitions.tryAcquire(held, observed({ ...stale, version: 6 }), 0).result._tag).toBe("Conflict")
    expect(LockTransitions.tryAcquire(held, observed({ ...stale, fence: 40 }), 0).result._tag).toBe("Conflict")
    expect(LockTransitions.tryAcquire(held, observed({ ...stale, owner: "x" }), 0).result._tag).toBe("Conflict")
    expect(LockTransitions.tryAcquire(free, observed(undefined), 0).result._tag).toBe("Acquired")
  })

  it("keeps a lock for its reserver until the reservation lapses, and the acquire clears it", () => {
    const reserved = { ...reservedBy("owner-c", 2_000, 100), owner: undefined }
    expect(LockTransitions.tryAcquire(reserved, acquire(), 2_000).result._tag).toBe("Conflict")
    const lapsed = LockTransitions.tryAcquire(reserved, acquire(), 2_001)
    expect(lapsed.result._tag).toBe("Acquired")
    const own = LockTransitions.tryAcquire(reserved, acquire({ owner: "owner-c", reserved: true }), 0)
    expect(own.next).toMatchObject({ owner: "owner-c", reservedBy: undefined, reservedUntil: 0, reservedSince: 0 })
    // Anyone else's acquire keeps the reservation: a lapsed one keeps nobody out.
    expect(lapsed.next).toMatchObject({ owner: "owner-b", reservedBy: "owner-c", reservedUntil: 2_000 })
  })

  it("lets anyone take a free lock before a reservation keeps others out, keeping the reservation", () => {
    const reserved = { ...reservedBy("owner-c", 2_000, 100), owner: undefined, reservedFrom: 1_500 }
    const before = LockTransitions.tryAcquire(reserved, acquire(), 1_499)
    expect(before.next).toMatchObject({ owner: "owner-b", reservedBy: "owner-c", reservedFrom: 1_500 })
    expect(LockTransitions.tryAcquire(reserved, acquire(), 1_500).result._tag).toBe("Conflict")
    expect(LockTransitions.tryAcquire(reserved, acquire({ owner: "owner-c", reserved: true }), 1_500).result._tag)
      .toBe("Acquired")
    expect(LockTransitions.admits(reserved, "owner-a", { _tag: "Absolute", maxClockSkewMs: 0 }, 1_499)).toBe(true)
    expect(LockTransitions.admits(reserved, "owner-a", { _tag: "Absolute", maxClockSkewMs: 0 }, 1_500)).toBe(false)
  })
})

describe("LockTransitions.renew", () => {
  const renew = (overrides: Partial<LockProtocol.RenewRequest> = {}): LockProtocol.RenewRequest => ({
    name: "orders",
    owner: "owner-a",
    fence: 41,
    leaseMs: 4_000,
    ...overrides
  })

  it("is lost without the record's owner and fence, naming the holder only while there is one", () => {
    expect(LockTransitions.renew(undefined, renew(), 0)).toEqual({
      result: { _tag: "Lost", current: undefined },
      next: undefined
    })
    expect(LockTransitions.renew(held, renew({ owner: "owner-b" }), 0).result).toEqual({ _tag: "Lost", current: held })
    expect(LockTransitions.renew(held, renew({ fence: 40 }), 0).result).toEqual({ _tag: "Lost", current: held })
    const freed = { ...free, owner: undefined }
    expect(LockTransitions.renew(freed, renew(), 0).result).toEqual({ _tag: "Lost", current: undefined })
  })

  it("extends the lease from now, changes the version and takes the sequence", () => {
    const { next, result } = LockTransitions.renew(held, renew({ sequence: 4 }), 20_000)
    expect(result).toEqual({ _tag: "Renewed", record: next })
    expect(next).toEqual({ ...held, leaseUntil: 24_000, leaseMs: 4_000, version: 8, sequence: 4 })
  })

  it("keeps the sequence when the renew is not ordered", () => {
    expect(LockTransitions.renew(held, renew(), 0).next?.sequence).toBe(3)
  })

  it("changes nothing for a renew delivered after it, or a newer one, applied", () => {
    expect(LockTransitions.renew(held, renew({ sequence: 3 }), 20_000)).toEqual({
      result: { _tag: "Renewed", record: held },
      next: undefined
    })
    expect(LockTransitions.renew(held, renew({ sequence: 2 }), 20_000).next).toBeUndefined()
  })

  it("sets or removes the data with setData, and keeps it without", () => {
    expect(LockTransitions.renew(held, renew({ setData: { data: "new" } }), 0).next?.data).toBe("new")
    expect(LockTransitions.renew(held, renew({ setData: { data: undefined } }), 0).next?.data).toBeUndefined()
    expect(LockTransitions.renew(held, renew({}), 0).next?.data).toBe("payload")
  })

  it("moves the lease to a new owner, keeping the fence, and starts the new owner's count", () => {
    // A sequence the old owner passed already does not hold back a resume.
    const resumed = LockTransitions.renew(held, renew({ newOwner: "owner-z", sequence: 1 }), 0).next
    expect(resumed).toMatchObject({ owner: "owner-z", fence: 41, sequence: 1, version: 8 })
    expect(LockTransitions.renew(held, renew({ newOwner: "owner-z" }), 0).next?.sequence).toBe(0)
  })

  it("keeps the reservation", () => {
    const reserved = reservedBy("owner-c", 50_000, 100)
    expect(LockTransitions.renew(reserved, renew(), 0).next).toMatchObject({
      reservedBy: "owner-c",
      reservedUntil: 50_000,
      reservedSince: 100
    })
  })
})

describe("LockTransitions.release", () => {
  it("frees the holder's lock, keeping the fence and the reservation", () => {
    const reserved = reservedBy("owner-c", 50_000, 100)
    const { next, result } = LockTransitions.release(reserved, { name: "orders", owner: "owner-a", fence: 41 })
    expect(result).toEqual({ _tag: "Released", record: next })
    expect(next).toEqual({
      ...reserved,
      owner: undefined,
      holder: undefined,
      leaseUntil: 0,
      version: 8,
      sequence: 0,
      acquiredAt: undefined,
      data: undefined
    })
  })

  it("frees on the owner alone when the fence is unknown", () => {
    expect(LockTransitions.release(held, { name: "orders", owner: "owner-a", fence: undefined }).result._tag)
      .toBe("Released")
  })

  it("frees nothing of another owner or fence, naming the holder only while there is one", () => {
    const otherFence = LockTransitions.release(held, { name: "orders", owner: "owner-a", fence: 40 })
    expect(otherFence).toEqual({ result: { _tag: "NotHeld", current: held }, next: undefined })
    expect(LockTransitions.release(held, { name: "orders", owner: "owner-b", fence: undefined }).result)
      .toEqual({ _tag: "NotHeld", current: held })
    expect(LockTransitions.release(free, { name: "orders", owner: "owner-a", fence: undefined }).result)
      .toEqual({ _tag: "NotHeld", current: undefined })
    expect(LockTransitions.release(undefined, { name: "orders", owner: "owner-a", fence: 1 }).result)
      .toEqual({ _tag: "NotHeld", current: undefined })
  })
})

describe("LockTransitions.reserve", () => {
  const reserve = (owner: string, waitingSince: number): LockProtocol.ReserveRequest => ({
    name: "orders",
    owner,
    reserveMs: 3_000,
    graceMs: 0,
    waitingSince
  })

  it("names the caller next without changing the version or the holder", () => {
    const { next, result } = LockTransitions.reserve(held, reserve("owner-b", 900), 1_000)
    expect(result).toEqual({ _tag: "Reserved", record: next })
    expect(next).toEqual({
      ...held,
      reservedBy: "owner-b",
      reservedUntil: 4_000,
      reservedSince: 900,
      reservedFrom: 1_000
    })
    const later = LockTransitions.reserve(held, { ...reserve("owner-b", 900), graceMs: 500 }, 1_000).next
    expect(later?.reservedFrom).toBe(1_500)
    // No later than it lapses.
    expect(LockTransitions.reserve(held, { ...reserve("owner-b", 900), graceMs: 9_000 }, 1_000).next?.reservedFrom)
      .toBe(4_000)
  })

  it("reserves a free record, but no name without one", () => {
    expect(LockTransitions.reserve(free, reserve("owner-b", 0), 0).result._tag).toBe("Reserved")
    expect(LockTransitions.reserve(undefined, reserve("owner-b", 0), 0)).toEqual({
      result: { _tag: "NotReserved", current: undefined },
      next: undefined
    })
  })

  it("lets only an earlier waiter take a live reservation over, and anyone a lapsed one", () => {
    const reserved = reservedBy("owner-c", 5_000, 500)
    expect(LockTransitions.reserve(reserved, reserve("owner-b", 500), 5_000)).toEqual({
      result: { _tag: "NotReserved", current: reserved },
      next: undefined
    })
    expect(LockTransitions.reserve(reserved, reserve("owner-b", 499), 5_000).next?.reservedBy).toBe("owner-b")
    expect(LockTransitions.reserve(reserved, reserve("owner-b", 9_999), 5_001).next?.reservedBy).toBe("owner-b")
    expect(LockTransitions.reserve(reserved, reserve("owner-c", 9_999), 0).next?.reservedSince).toBe(9_999)
  })
})

describe("LockTransitions.forceRelease", () => {
  it("frees a held lock and its reservation, answering the record as it was", () => {
    const reserved = reservedBy("owner-c", 5_000, 500)
    const { next, result } = LockTransitions.forceRelease(reserved, undefined)
    expect(result).toBe(reserved)
    expect(next).toMatchObject({ owner: undefined, fence: 41, version: 8, reservedBy: undefined, reservedUntil: 0 })
    expect(next?.reservedSince).toBe(0)
  })

  it("frees only the holder it names", () => {
    expect(LockTransitions.forceRelease(held, { owner: "owner-a", fence: 41 }).result).toBe(held)
    expect(LockTransitions.forceRelease(held, { owner: "owner-a", fence: 40 })).toEqual({
      result: undefined,
      next: undefined
    })
    expect(LockTransitions.forceRelease(held, { owner: "owner-b", fence: 41 }).next).toBeUndefined()
  })

  it("frees nothing that nobody holds", () => {
    expect(LockTransitions.forceRelease(free, undefined).next).toBeUndefined()
    expect(LockTransitions.forceRelease(undefined, undefined).result).toBeUndefined()
  })
})

describe("LockTransitions under a lease session", () => {
  const now = 20_000
  const underSession = (): LockRecord => {
    const result = LockTransitions.tryAcquire(free, acquire({ session: "session-a" }), now)
    if (result.result._tag !== "Acquired") throw new Error("a free lock is taken")
    return result.result.record
  }

  it("an acquire under a session writes its id and the fixed lease fields", () => {
    const record = underSession()
    expect([record.session, record.leaseUntil, record.leaseMs]).toEqual([
      "session-a",
      LeaseSession.heldUntil,
      LeaseSession.heldUntil
    ])
  })

  it("no lease-based takeover passes a lock under a session; an orphan takeover of exactly its holder does", () => {
    const record = underSession()
    const late = now + 365 * 24 * 3600 * 1000
    expect(LockTransitions.admits(record, "owner-c", { _tag: "Absolute", maxClockSkewMs: 0 }, late)).toBe(false)
    const orphan = { owner: record.owner!, fence: record.fence }
    const observed: LockProtocol.Takeover = { _tag: "Observed", stale: undefined }
    expect(LockTransitions.admits(record, "owner-c", observed, now, orphan)).toBe(true)
    expect(LockTransitions.admits(record, "owner-c", observed, now, { ...orphan, fence: orphan.fence - 1 })).toBe(false)
    // An orphan takeover takes nothing but the orphan or a free lock, not even an expired lease of its own.
    const expired = { ...held, leaseUntil: 0 }
    expect(LockTransitions.admits(expired, "owner-c", { _tag: "Absolute", maxClockSkewMs: 0 }, now, orphan)).toBe(
      false
    )
    expect(LockTransitions.admits(free, "owner-c", observed, now, orphan)).toBe(true)
  })

  it("a heartbeat leaves the session id; a resume without a session removes it; a release clears it", () => {
    const record = underSession()
    const renew = (request: Partial<LockProtocol.RenewRequest>) => {
      const result = LockTransitions.renew(record, {
        name: "orders",
        owner: record.owner!,
        fence: record.fence,
        leaseMs: 2_000,
        ...request
      }, now)
      if (result.result._tag !== "Renewed") throw new Error("renewed")
      return result.result.record
    }
    expect(renew({ session: "session-a", setData: { data: "x" } })).toMatchObject({
      session: "session-a",
      leaseUntil: LeaseSession.heldUntil,
      data: "x"
    })
    expect(renew({ newOwner: "owner-c" })).toMatchObject({ session: undefined, leaseUntil: now + 2_000 })
    expect(renew({})).toMatchObject({ session: "session-a", leaseUntil: now + 2_000 })
    const released = LockTransitions.release(record, { name: "orders", owner: record.owner!, fence: record.fence })
    expect(released.result._tag === "Released" && released.result.record?.session).toBeUndefined()
  })
})
