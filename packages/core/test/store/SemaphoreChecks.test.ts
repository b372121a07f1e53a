import { describe, expect, it } from "vitest"
import * as SemaphoreRecord from "../../src/record/SemaphoreRecord.js"
import * as SemaphoreChecks from "../../src/store/SemaphoreChecks.js"
import type * as SemaphoreProtocol from "../../src/store/SemaphoreProtocol.js"

const acquire = (overrides: Partial<Record<keyof SemaphoreProtocol.AcquirePermitsRequest, unknown>> = {}) =>
  ({
    name: "pool",
    owner: "me",
    holder: "worker",
    limit: 4,
    permits: 1,
    leaseMs: 1000,
    data: undefined,
    takeover: { _tag: "Absolute", maxClockSkewMs: 0 },
    expired: [],
    create: false,
    ...overrides
  }) as SemaphoreProtocol.AcquirePermitsRequest

describe("SemaphoreChecks.ownerProblem", () => {
  it("takes a well-formed owner id of 1 to maxOwnerBytes bytes", () => {
    expect(SemaphoreChecks.ownerProblem("o")).toBeUndefined()
    expect(SemaphoreChecks.ownerProblem("o".repeat(SemaphoreRecord.maxOwnerBytes))).toBeUndefined()
  })

  it("names what it checks in each refusal", () => {
    expect(SemaphoreChecks.ownerProblem(7)).toBe("owner must be a string; got number")
    expect(SemaphoreChecks.ownerProblem("", "the new owner")).toBe("the new owner must not be empty")
    expect(SemaphoreChecks.ownerProblem("\uD800")).toBe("owner is not well-formed Unicode (it holds a lone surrogate)")
    expect(SemaphoreChecks.ownerProblem("o".repeat(SemaphoreRecord.maxOwnerBytes + 1))).toBe(
      `owner is ${SemaphoreRecord.maxOwnerBytes + 1} UTF-8 bytes, over the limit of ${SemaphoreRecord.maxOwnerBytes}`
    )
  })
})

describe("SemaphoreChecks.acquireProblem", () => {
  it("takes a good request, with expired holders that fit the limit", () => {
    expect(SemaphoreChecks.acquireProblem(acquire())).toBeUndefined()
    expect(
      SemaphoreChecks.acquireProblem(acquire({
        takeover: { _tag: "Observed" },
        expired: [{ owner: "a", permits: 2, version: 0 }, { owner: "b", permits: 2, version: 9 }]
      }))
    ).toBeUndefined()
  })

  it("refuses in order: owner, holder, limit and permits, lease, data, takeover", () => {
    const all = { owner: "", holder: 1, limit: 0, leaseMs: 0, data: 1, takeover: { _tag: "Never" } }
    expect(SemaphoreChecks.acquireProblem(acquire(all))).toBe("owner must not be empty")
    const { owner: _owner, ...noOwner } = all
    expect(SemaphoreChecks.acquireProblem(acquire(noOwner))).toBe("holder must be a string; got number")
    const { holder: _holder, ...noHolder } = noOwner
    expect(SemaphoreChecks.acquireProblem(acquire(noHolder))).toBe(
      `semaphore limit 0 is not a whole number from 1 to ${SemaphoreRecord.maxLimit}`
    )
    const { limit: _limit, ...noLimit } = noHolder
    expect(SemaphoreChecks.acquireProblem(acquire(noLimit))).toBe(
      "leaseMs 0 is not a whole number of milliseconds over 0"
    )
    const { leaseMs: _leaseMs, ...noLease } = noLimit
    expect(SemaphoreChecks.acquireProblem(acquire(noLease))).toBe(
      "data must be a string (encode it first, e.g. with Schema); got number"
    )
    const { data: _data, ...noData } = noLease
    expect(SemaphoreChecks.acquireProblem(acquire(noData))).toBe(
      `takeover must be Absolute or Observed; got [object Object]`
    )
  })

  it("refuses a skew bound that is not a finite number of 0 or more", () => {
    for (const skew of [-1, Infinity, Number.NaN, "5"]) {
      expect(SemaphoreChecks.acquireProblem(acquire({ takeover: { _tag: "Absolute", maxClockSkewMs: skew } })))
        .toMatch(/^maxClockSkewMs .* is not a finite number of 0 or more$/)
    }
  })

  it("refuses expired holders that could not be in a record of this limit", () => {
    const problem = (expired: unknown) => SemaphoreChecks.acquireProblem(acquire({ expired }))
    expect(problem("a")).toBe("expired must be an array of holders; got string")
    expect(problem([null])).toBe("expired holds null, not a holder")
    expect(problem([{ owner: "", permits: 1, version: 0 }])).toBe("an expired holder's owner must not be empty")
    expect(problem([{ owner: "me", permits: 1, version: 0 }])).toBe("expired names the caller's own owner id")
    expect(problem([{ owner: "a", permits: 1, version: 0 }, { owner: "a", permits: 1, version: 1 }])).toBe(
      `expired names the owner "a" twice`
    )
    expect(problem([{ owner: "a", permits: 5, version: 0 }])).toBe(
      `expired holder "a" has permits 5, not a whole number from 1 to the limit (4)`
    )
    expect(problem([{ owner: "a", permits: 1, version: -1 }])).toBe(
      `expired holder "a" has version -1, not a whole number`
    )
    expect(problem([{ owner: "a", permits: 3, version: 0 }, { owner: "b", permits: 2, version: 0 }])).toBe(
      "expired holders hold 5 permits in all, more than the limit (4)"
    )
  })
})

describe("SemaphoreChecks.renewProblem", () => {
  const renew = { name: "pool", owner: "me", fence: 3, leaseMs: 1000 }

  it("takes a whole fence, a lease over 0 and an ordered or unordered renew", () => {
    expect(SemaphoreChecks.renewProblem(renew)).toBeUndefined()
    expect(SemaphoreChecks.renewProblem({ ...renew, fence: 0, sequence: 1 })).toBeUndefined()
  })

  it("refuses in order: owner, fence, lease, sequence", () => {
    expect(SemaphoreChecks.renewProblem({ ...renew, owner: "", fence: -1 })).toBe("owner must not be empty")
    expect(SemaphoreChecks.renewProblem({ ...renew, fence: 1.5, leaseMs: 0 })).toBe("fence 1.5 is not a whole number")
    expect(SemaphoreChecks.renewProblem({ ...renew, leaseMs: 0.5, sequence: 0 })).toBe(
      "leaseMs 0.5 is not a whole number of milliseconds over 0"
    )
    expect(SemaphoreChecks.renewProblem({ ...renew, sequence: 0 })).toBe(
      "renew sequence 0 is not a whole number of at least 1"
    )
  })
})

describe("SemaphoreChecks.releaseProblem", () => {
  const release = { name: "pool", owner: "me", fence: 3, permits: 2 }

  it("takes a known or unknown fence, and permits up to the largest limit", () => {
    expect(SemaphoreChecks.releaseProblem(release)).toBeUndefined()
    expect(SemaphoreChecks.releaseProblem({ ...release, fence: undefined, permits: SemaphoreRecord.maxLimit }))
      .toBeUndefined()
  })

  it("refuses a bad fence, then permits out of range", () => {
    expect(SemaphoreChecks.releaseProblem({ ...release, fence: -1, permits: 0 })).toBe(
      "fence -1 is not a whole number"
    )
    expect(SemaphoreChecks.releaseProblem({ ...release, permits: SemaphoreRecord.maxLimit + 1 })).toBe(
      `permits ${SemaphoreRecord.maxLimit + 1} is not a whole number from 1 to ${SemaphoreRecord.maxLimit}`
    )
    expect(SemaphoreChecks.releaseProblem({ ...release, permits: 0 })).toBe(
      `permits 0 is not a whole number from 1 to ${SemaphoreRecord.maxLimit}`
    )
  })
})

describe("SemaphoreChecks.maxNameBytes", () => {
  it("is a byte under the lock names' budget, the byte that marks a semaphore's key", () => {
    expect(SemaphoreChecks.maxNameBytes(1024)).toBe(1023)
    expect(SemaphoreChecks.maxNameBytes(2048)).toBe(2047)
  })
})
