import { describe, expect, it } from "vitest"
import { type PermitHolder, permitRecord, type SemaphoreRecord } from "../../src/record/SemaphoreRecord.js"
import type * as SemaphoreProtocol from "../../src/store/SemaphoreProtocol.js"
import * as SemaphoreTransitions from "../../src/store/SemaphoreTransitions.js"

const holderA: PermitHolder = {
  owner: "owner-a",
  holder: "host-a",
  permits: 2,
  fence: 11,
  leaseUntil: 10_000,
  leaseMs: 5_000,
  version: 3,
  sequence: 2,
  acquiredAt: 5_000,
  data: undefined
}

const holderB: PermitHolder = { ...holderA, owner: "owner-b", holder: "host-b", permits: 1, fence: 12, version: 1 }

const pool: SemaphoreRecord = { name: "pool", limit: 4, fence: 12, used: 3, holders: [holderA, holderB] }

const acquire = (
  overrides: Partial<SemaphoreProtocol.AcquirePermitsRequest> = {}
): SemaphoreProtocol.AcquirePermitsRequest => ({
  name: "pool",
  owner: "owner-c",
  holder: "host-c",
  limit: 4,
  permits: 1,
  leaseMs: 2_000,
  data: "d",
  takeover: { _tag: "Absolute", maxClockSkewMs: 500 },
  expired: [],
  create: false,
  ...overrides
})

const expiredA = { owner: "owner-a", permits: 2, version: 3 }

describe("SemaphoreTransitions.tryAcquirePermits", () => {
  it("creates a record whose one holder is the caller, its fence started from the clock", () => {
    const { next, result } = SemaphoreTransitions.tryAcquirePermits(undefined, acquire({ create: true }), 1_000)
    const holder: PermitHolder = {
      owner: "owner-c",
      holder: "host-c",
      permits: 1,
      fence: 1_001,
      leaseUntil: 3_000,
      leaseMs: 2_000,
      version: 1,
      sequence: 0,
      acquiredAt: 1_000,
      data: "d"
    }
    expect(next).toEqual({ name: "pool", limit: 4, fence: 1_001, used: 1, holders: [holder] })
    expect(result).toEqual({ _tag: "Acquired", record: permitRecord("pool", holder), semaphore: next })
  })

  it("creates nothing over a record: a conflict, or the record's limit when it differs", () => {
    expect(SemaphoreTransitions.tryAcquirePermits(pool, acquire({ create: true }), 0)).toEqual({
      result: { _tag: "Conflict", current: pool },
      next: undefined
    })
    expect(SemaphoreTransitions.tryAcquirePermits(pool, acquire({ create: true, limit: 5 }), 0).result)
      .toEqual({ _tag: "LimitMismatch", limit: 4 })
  })

  it("asks for a create when there is no record", () => {
    expect(SemaphoreTransitions.tryAcquirePermits(undefined, acquire(), 0)).toEqual({
      result: { _tag: "Conflict", current: undefined },
      next: undefined
    })
  })

  it("adds the caller with the next fence while the permits fit", () => {
    const { next, result } = SemaphoreTransitions.tryAcquirePermits(pool, acquire(), 0)
    expect(result._tag).toBe("Acquired")
    expect(next?.fence).toBe(13)
    expect(next?.used).toBe(4)
    expect(next?.holders.map((holder) => holder.owner)).toEqual(["owner-a", "owner-b", "owner-c"])
    expect(SemaphoreTransitions.tryAcquirePermits(pool, acquire({ permits: 2 }), 0)).toEqual({
      result: { _tag: "Conflict", current: pool },
      next: undefined
    })
  })

  it("answers the limit first when the record has another", () => {
    expect(SemaphoreTransitions.tryAcquirePermits(pool, acquire({ limit: 8, permits: 8 }), 0).result)
      .toEqual({ _tag: "LimitMismatch", limit: 4 })
  })

  it("takes nothing for an owner that holds permits already", () => {
    expect(SemaphoreTransitions.tryAcquirePermits(pool, acquire({ owner: "owner-b" }), 0).result._tag)
      .toBe("Conflict")
  })

  it("removes a holder over by more than the skew bound in the same write, freeing its permits", () => {
    const request = acquire({ permits: 3, expired: [expiredA] })
    // leaseUntil 10000 + skew 500: still there at 10500, removable at 10501.
    expect(SemaphoreTransitions.tryAcquirePermits(pool, request, 10_500).result._tag).toBe("Conflict")
    const { next } = SemaphoreTransitions.tryAcquirePermits(pool, request, 10_501)
    expect(next?.used).toBe(4)
    expect(next?.holders.map((holder) => [holder.owner, holder.fence])).toEqual([["owner-b", 12], ["owner-c", 13]])
  })

  it("removes under observed takeover only a holder still at the version the caller watched", () => {
    const observed = (version: number) =>
      acquire({ takeover: { _tag: "Observed" }, permits: 3, expired: [{ ...expiredA, version }] })
    expect(SemaphoreTransitions.tryAcquirePermits(pool, observed(3), 0).result._tag).toBe("Acquired")
    expect(SemaphoreTransitions.tryAcquirePermits(pool, observed(2), 1e12).result._tag).toBe("Conflict")
  })

  it("removes nobody unless each holder named is there with the permits seen", () => {
    const gone = acquire({ expired: [{ owner: "owner-x", permits: 1, version: 0 }] })
    expect(SemaphoreTransitions.tryAcquirePermits(pool, gone, 1e12).next).toBeUndefined()
    const otherPermits = acquire({ expired: [{ ...expiredA, permits: 1 }] })
    expect(SemaphoreTransitions.tryAcquirePermits(pool, otherPermits, 1e12).next).toBeUndefined()
  })
})

describe("SemaphoreTransitions.isRemovable", () => {
  it("judges a holder by the takeover", () => {
    const absolute = { _tag: "Absolute", maxClockSkewMs: 0 } as const
    expect(SemaphoreTransitions.isRemovable(pool, expiredA, absolute, 10_000)).toBe(false)
    expect(SemaphoreTransitions.isRemovable(pool, expiredA, absolute, 10_001)).toBe(true)
    expect(SemaphoreTransitions.isRemovable(pool, { ...expiredA, version: 0 }, { _tag: "Observed" }, 0)).toBe(false)
  })
})

describe("SemaphoreTransitions.renewPermits", () => {
  const renew = (
    overrides: Partial<SemaphoreProtocol.RenewPermitsRequest> = {}
  ): SemaphoreProtocol.RenewPermitsRequest => ({
    name: "pool",
    owner: "owner-a",
    fence: 11,
    leaseMs: 4_000,
    ...overrides
  })

  it("extends the holder's lease, changes its version and takes the sequence", () => {
    const { next, result } = SemaphoreTransitions.renewPermits(pool, renew({ sequence: 3 }), 20_000)
    const renewed = { ...holderA, leaseUntil: 24_000, leaseMs: 4_000, version: 4, sequence: 3 }
    expect(next).toEqual({ ...pool, holders: [renewed, holderB] })
    expect(result).toEqual({ _tag: "Renewed", record: permitRecord("pool", renewed) })
    expect(SemaphoreTransitions.renewPermits(pool, renew(), 0).next?.holders[0]?.sequence).toBe(2)
  })

  it("changes nothing for a renew delivered after it, or a newer one, applied", () => {
    expect(SemaphoreTransitions.renewPermits(pool, renew({ sequence: 2 }), 20_000)).toEqual({
      result: { _tag: "Renewed", record: permitRecord("pool", holderA) },
      next: undefined
    })
  })

  it("is lost without the holder's owner and fence", () => {
    const lost = { result: { _tag: "Lost", current: undefined }, next: undefined }
    expect(SemaphoreTransitions.renewPermits(undefined, renew(), 0)).toEqual(lost)
    expect(SemaphoreTransitions.renewPermits(pool, renew({ owner: "owner-x" }), 0)).toEqual(lost)
    expect(SemaphoreTransitions.renewPermits(pool, renew({ fence: 12 }), 0)).toEqual(lost)
  })
})

describe("SemaphoreTransitions.releasePermits", () => {
  const release = (
    overrides: Partial<SemaphoreProtocol.ReleasePermitsRequest> = {}
  ): SemaphoreProtocol.ReleasePermitsRequest => ({
    name: "pool",
    owner: "owner-a",
    fence: 11,
    permits: 2,
    ...overrides
  })

  it("removes the holder and frees its permits, keeping the fence", () => {
    expect(SemaphoreTransitions.releasePermits(pool, release())).toEqual({
      result: { _tag: "Released" },
      next: { ...pool, used: 1, holders: [holderB] }
    })
    expect(SemaphoreTransitions.releasePermits(pool, release({ fence: undefined })).next?.fence).toBe(12)
  })

  it("frees nothing of another owner, fence or number of permits", () => {
    const notHeld = { result: { _tag: "NotHeld", current: undefined }, next: undefined }
    expect(SemaphoreTransitions.releasePermits(undefined, release())).toEqual(notHeld)
    expect(SemaphoreTransitions.releasePermits(pool, release({ owner: "owner-x" }))).toEqual(notHeld)
    expect(SemaphoreTransitions.releasePermits(pool, release({ fence: 12 }))).toEqual(notHeld)
    expect(SemaphoreTransitions.releasePermits(pool, release({ permits: 1 }))).toEqual(notHeld)
  })
})
