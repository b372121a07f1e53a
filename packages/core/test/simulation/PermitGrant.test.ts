import { describe, expect, it } from "vitest"
import type * as LockRecord from "../../src/record/LockRecord.js"
import type * as SemaphoreRecord from "../../src/record/SemaphoreRecord.js"
import * as PermitGrant from "../../src/simulation/PermitGrant.js"
import type * as SemaphoreProtocol from "../../src/store/SemaphoreProtocol.js"

const request = (expired: SemaphoreProtocol.AcquirePermitsRequest["expired"]) => ({
  name: "pool",
  owner: "o1",
  holder: "p1#4",
  limit: 5,
  permits: 2,
  leaseMs: 1_000,
  data: undefined,
  takeover: { _tag: "Observed" as const },
  expired,
  create: false
})

const lockRecord: LockRecord.LockRecord = {
  name: "pool",
  owner: "o1",
  holder: "p1#4",
  leaseUntil: 2_000,
  leaseMs: 1_000,
  fence: 12,
  version: 1,
  sequence: 1,
  acquiredAt: 1_000,
  data: undefined,
  reservedBy: undefined,
  reservedUntil: 0,
  reservedSince: 0,
  reservedFrom: 0
}
const semaphore: SemaphoreRecord.SemaphoreRecord = { name: "pool", limit: 5, fence: 12, used: 2, holders: [] }

describe("PermitGrant", () => {
  it("takes the fence of an acquire the store applied, and the permits of the expired holders it removed", () => {
    const expired = [{ owner: "o7", permits: 2, version: 1 }, { owner: "o8", permits: 1, version: 3 }]
    const acquired = { _tag: "Acquired" as const, record: lockRecord, semaphore }
    expect(PermitGrant.ofAnswer(request(expired), acquired)).toEqual({ fence: 12, tookOver: 3 })
    expect(PermitGrant.ofAnswer(request([]), acquired)).toEqual({ fence: 12, tookOver: 0 })
  })

  it("grants nothing to an acquire the store did not apply", () => {
    expect(PermitGrant.ofAnswer(request([]), { _tag: "Conflict", current: undefined })).toBeUndefined()
    expect(PermitGrant.ofAnswer(request([]), { _tag: "LimitMismatch", limit: 3 })).toBeUndefined()
  })

  it("trusts a grant whose fence the permits' handle holds, or that no handle shows, and nothing else", () => {
    const grant = { fence: 12, tookOver: 1 }
    expect(PermitGrant.check("p1#4", 12, grant)).toEqual({ _tag: "Trusted", grant })
    expect(PermitGrant.check("p1#4", undefined, grant)).toEqual({ _tag: "Trusted", grant })
    expect(PermitGrant.check("p1#4", 11, grant)).toEqual({
      _tag: "Mismatch",
      message: "p1#4 holds permits with fence 11, but the store granted its holder fence 12"
    })
    expect(PermitGrant.check("p1#4", undefined, undefined)).toEqual({
      _tag: "Mismatch",
      message: "p1#4 holds permits with fence undefined, but the store granted its holder none"
    })
  })
})
