import { describe, expect, it } from "vitest"
import * as LockExpressions from "../../src/dynamodb/LockExpressions.js"
import * as LockItem from "../../src/dynamodb/LockItem.js"
import * as LockRequests from "../../src/dynamodb/LockRequests.js"
import * as SemaphoreExpressions from "../../src/dynamodb/SemaphoreExpressions.js"
import * as SemaphoreWrites from "../../src/dynamodb/SemaphoreWrites.js"
import type { LockRecord } from "../../src/record/LockRecord.js"
import type { SemaphoreRecord } from "../../src/record/SemaphoreRecord.js"
import * as LeaseSession from "../../src/session/LeaseSession.js"

const v = LockExpressions.values

const acquire = {
  name: "n",
  owner: "o1",
  holder: "h",
  leaseMs: 1000,
  data: undefined,
  takeover: { _tag: "Observed", stale: undefined }
} as const

const record = (patch: Partial<LockRecord>): LockRecord => ({
  name: "n",
  owner: "o1",
  holder: "h",
  leaseUntil: 2000,
  leaseMs: 1000,
  fence: 7,
  version: 1,
  sequence: 0,
  acquiredAt: 1000,
  data: undefined,
  reservedBy: undefined,
  reservedUntil: 0,
  reservedSince: 0,
  reservedFrom: 0,
  ...patch
})

describe("LockRequests", () => {
  it("rounds TTL up to whole seconds past the retention", () => {
    expect(LockExpressions.ttlAt(1_001, 1_000)).toBe(3)
    expect(LockExpressions.ttlAt(1_000, 1_000)).toBe(2)
  })

  it("builds an acquire for each condition, with only the values its expressions use", () => {
    const free = LockRequests.acquire(acquire, 5_000, LockRequests.freeOnly, 60_000)
    expect(free.ConditionExpression).toBe(LockExpressions.freeOnlyExpression)
    expect(free.UpdateExpression).toBe(LockExpressions.acquireUpdate(false, false))
    expect(free.UpdateExpression).not.toContain("#b")
    expect(LockRequests.acquire({ ...acquire, reserved: true }, 5_000, LockRequests.freeOnly, 0).UpdateExpression)
      .toBe(LockExpressions.acquireUpdate(false, true))
    expect(Object.keys(free.ExpressionAttributeValues)).toEqual([
      v.owner,
      v.holder,
      v.leaseUntil,
      v.leaseMs,
      v.now,
      v.ttl,
      v.zero,
      v.one
    ])
    expect(free.ExpressionAttributeValues[v.leaseUntil]).toEqual({ N: "6000" })
    expect(free.ExpressionAttributeValues[v.ttl]).toEqual({ N: "66" })

    const expired = LockRequests.acquire({ ...acquire, data: "d" }, 5_000, { _tag: "FreeOrExpired", cutoff: 4_000 }, 0)
    expect(expired.UpdateExpression).toBe(LockExpressions.acquireUpdate(true, false))
    expect(expired.ExpressionAttributeValues[v.data]).toEqual({ S: "d" })
    expect(expired.ExpressionAttributeValues[v.cutoff]).toEqual({ N: "4000" })

    const stale = LockRequests.acquire(
      acquire,
      5_000,
      LockRequests.observedCondition({ owner: "o0", fence: 3, version: 9 }),
      0
    )
    expect(stale.ConditionExpression).toBe(LockExpressions.freeOrStaleExpression)
    expect(stale.ExpressionAttributeValues[v.staleVersion]).toEqual({ N: "9" })
    expect(LockRequests.observedCondition(undefined)).toBe(LockRequests.freeOnly)
  })

  it("builds an acquire under a session with the fixed lease fields, and one of an orphan conditioned on it", () => {
    const under = LockRequests.acquire({ ...acquire, session: "s1" }, 5_000, LockRequests.freeOnly, 0)
    expect(under.UpdateExpression).toBe(LockExpressions.acquireUpdate(false, false, true))
    expect(under.UpdateExpression).toContain("#x = :x")
    expect(under.ExpressionAttributeValues[v.leaseUntil]).toEqual({ N: String(LeaseSession.heldUntil) })
    expect(under.ExpressionAttributeValues[v.leaseMs]).toEqual({ N: String(LeaseSession.heldUntil) })
    expect(under.ExpressionAttributeValues[v.session]).toEqual({ S: "s1" })
    // An acquire on a lease of its own takes the lock out of any session.
    expect(LockRequests.acquire(acquire, 5_000, LockRequests.freeOnly, 0).UpdateExpression).toMatch(/REMOVE .*#x/)

    const orphan = LockRequests.acquire(acquire, 5_000, { _tag: "FreeOrOrphan", orphan: { owner: "o0", fence: 3 } }, 0)
    expect(orphan.ConditionExpression).toBe(LockExpressions.freeOrOrphanExpression)
    expect([v.orphanOwner, v.orphanFence, v.heldUntil].map((value) => orphan.ExpressionAttributeValues[value]))
      .toEqual([{ S: "o0" }, { N: "3" }, { N: String(LeaseSession.heldUntil) }])
  })

  it("reads a conflict of a retried acquire that carries its own owner as an acquisition", () => {
    const mine = record({ owner: "o1" })
    expect(LockRequests.acquireConflict("o1", 2, mine)).toEqual({
      result: { _tag: "Acquired", record: mine },
      holder: undefined
    })
    expect(LockRequests.acquireConflict("o1", 1, mine).result._tag).toBe("Conflict")
    const reserved = record({ owner: undefined, reservedBy: "o5" })
    expect(LockRequests.acquireConflict("o1", 1, reserved)).toEqual({
      result: { _tag: "Conflict", current: reserved },
      holder: reserved
    })
    expect(LockRequests.acquireConflict("o1", 1, record({ owner: undefined })).holder).toBeUndefined()
  })

  it("builds the renew a heartbeat, a data update and a resume each send", () => {
    const base = { name: "n", owner: "o1", fence: 7, leaseMs: 100 }
    const unordered = LockRequests.renew(base, 1_000, 0)
    expect(unordered.ConditionExpression).toBe(LockExpressions.renewCondition)
    expect(unordered.ExpressionAttributeNames).toBe(LockExpressions.renewNames(false, false, false))
    expect(unordered.ExpressionAttributeValues[v.sequence]).toBeUndefined()

    const ordered = LockRequests.renew({ ...base, sequence: 4, setData: { data: undefined } }, 1_000, 0)
    expect(ordered.ConditionExpression).toBe(LockExpressions.orderedRenewCondition)
    expect(ordered.UpdateExpression).toBe(`${LockExpressions.renewUpdate} REMOVE #d`)
    expect(ordered.ExpressionAttributeNames).toBe(LockExpressions.renewNames(true, true, false))

    const resume = LockRequests.renew({ ...base, sequence: 2, newOwner: "o2" }, 1_000, 0)
    expect(resume.ConditionExpression).toBe(LockExpressions.renewCondition)
    expect(resume.UpdateExpression).toContain(`#o = ${v.newOwner}`)
    expect(resume.ExpressionAttributeValues[v.newOwner]).toEqual({ S: "o2" })
    expect(LockRequests.renewProblem({ ...base, sequence: -1 })).toBeDefined()
  })

  it("reads failed renew and release conditions", () => {
    const request = { name: "n", owner: "o1", fence: 7, leaseMs: 100, sequence: 3 }
    expect(LockRequests.renewConflict(request, record({ sequence: 5 }))._tag).toBe("Renewed")
    expect(LockRequests.renewConflict(request, record({ sequence: 2 }))._tag).toBe("Lost")
    expect(LockRequests.renewConflict(request, record({ owner: undefined }))).toEqual({
      _tag: "Lost",
      current: undefined
    })
    expect(LockRequests.releaseConflict(2, record({ owner: undefined }))).toBe(LockRequests.released)
    expect(LockRequests.releaseConflict(1, record({ owner: undefined }))).toEqual({
      _tag: "NotHeld",
      current: undefined
    })
    expect(LockRequests.releaseConflict(2, record({ owner: "o2" }))._tag).toBe("NotHeld")
  })

  it("reads a failed force release as nothing removed, unless an earlier attempt may have removed the holder", () => {
    expect(LockRequests.forceReleaseConflict(false)).toEqual({ _tag: "NotHeld" })
    expect(LockRequests.forceReleaseConflict(true)).toEqual({ _tag: "ReadCurrent" })
    const holder = { owner: "o1", fence: 7 }
    // No item: no attempt can have been applied.
    expect(LockRequests.forceReleaseRetried("locks", holder, undefined)).toEqual({ _tag: "NotHeld" })
    expect(LockRequests.forceReleaseRetried("locks", undefined, undefined)).toEqual({ _tag: "NotHeld" })

    // Free with the holder's fence: what the earlier attempt would have left, and what the holder's own release leaves.
    const free = record({ owner: undefined, holder: undefined, leaseUntil: 0, version: 2 })
    const freed = LockRequests.forceReleaseRetried("locks", holder, free)
    expect(freed._tag).toBe("Unknown")
    if (freed._tag !== "Unknown") return
    expect(freed.current).toBe(free)
    expect(freed.message).toBe(
      `force release of lock "n" held by owner o1 (fence 7) on table "locks": an earlier attempt may have been ` +
        `applied and its answer lost, and the retry found the lock free (fence 7), so whether this call removed ` +
        `that holder can not be told`
    )

    // Held by the next holder: the earlier attempt may have freed the lock for it, or the lock changed hands first.
    const next = record({ owner: "o2", holder: "h2", fence: 8 })
    const handed = LockRequests.forceReleaseRetried("locks", holder, next)
    expect(handed._tag === "Unknown" && handed.message).toContain(
      "the retry found the lock held by h2 (owner o2, fence 8)"
    )

    // Without a holder, the retry fails only on a free lock: whom an earlier attempt removed, if anyone, is not known.
    const anyone = LockRequests.forceReleaseRetried("locks", undefined, free)
    expect(anyone._tag === "Unknown" && anyone.message).toContain(
      `force release of lock "n" on table "locks": an earlier attempt may have been applied`
    )
    expect(anyone._tag === "Unknown" && anyone.message).toContain("whether this call removed a holder, and which,")
  })

  it("releases by owner, by owner and fence, or for an operator", () => {
    expect(LockRequests.release({ name: "n", owner: "o", fence: undefined }, 0, 0).ConditionExpression).toBe(
      LockExpressions.releaseByOwner
    )
    expect(LockRequests.release({ name: "n", owner: "o", fence: 3 }, 0, 0).ExpressionAttributeValues[v.fence])
      .toEqual({ N: "3" })
    expect(LockRequests.forceRelease(undefined, 0, 0).ConditionExpression).toBe("attribute_exists(#o)")
    expect(
      LockRequests.reserve({ name: "n", owner: "o", reserveMs: 50, graceMs: 20, waitingSince: 9 }, 100)
        .ExpressionAttributeValues
    )
      .toEqual({
        [v.owner]: { S: "o" },
        [v.now]: { N: "100" },
        [v.reservedUntil]: { N: "150" },
        [v.reservedFrom]: { N: "120" },
        [v.waitingSince]: { N: "9" }
      })
  })

  it("declares exactly the placeholders each request's expressions use, naming the item's own attributes", () => {
    const requests: ReadonlyArray<LockRequests.Request> = [
      LockRequests.acquire(acquire, 5_000, LockRequests.freeOnly, 0),
      LockRequests.acquire({ ...acquire, data: "d" }, 5_000, { _tag: "FreeOrExpired", cutoff: 4_000 }, 0),
      LockRequests.acquire({ ...acquire, reserved: true }, 5_000, { _tag: "FreeOrExpired", cutoff: 4_000 }, 0),
      LockRequests.acquire({ ...acquire, data: "d", reserved: true }, 5_000, LockRequests.freeOnly, 0),
      LockRequests.acquire(acquire, 5_000, LockRequests.observedCondition({ owner: "o0", fence: 3, version: 9 }), 0),
      LockRequests.acquire({ ...acquire, session: "s1" }, 5_000, LockRequests.freeOnly, 0),
      LockRequests.acquire(
        { ...acquire, data: "d", reserved: true, session: "s1" },
        5_000,
        { _tag: "FreeOrOrphan", orphan: { owner: "o0", fence: 3 } },
        0
      ),
      LockRequests.acquire(acquire, 5_000, { _tag: "FreeOrOrphan", orphan: { owner: "o0", fence: 3 } }, 0),
      LockRequests.renew({ name: "n", owner: "o1", fence: 7, leaseMs: 100 }, 1_000, 0),
      LockRequests.renew({ name: "n", owner: "o1", fence: 7, leaseMs: 100, sequence: 3, session: "s1" }, 1_000, 0),
      LockRequests.renew(
        { name: "n", owner: "o1", fence: 7, leaseMs: 100, sequence: 3, session: "s1", setData: { data: undefined } },
        1_000,
        0
      ),
      LockRequests.renew({ name: "n", owner: "o1", fence: 7, leaseMs: 100, newOwner: "o2", session: "s2" }, 1_000, 0),
      LockRequests.renew(
        { name: "n", owner: "o1", fence: 7, leaseMs: 100, newOwner: "o2", setData: { data: "x" } },
        1_000,
        0
      ),
      LockRequests.renew({ name: "n", owner: "o1", fence: 7, leaseMs: 100, sequence: 4 }, 1_000, 0),
      LockRequests.renew({ name: "n", owner: "o1", fence: 7, leaseMs: 100, setData: { data: "x" } }, 1_000, 0),
      LockRequests.renew({ name: "n", owner: "o1", fence: 7, leaseMs: 100, setData: { data: undefined } }, 1_000, 0),
      LockRequests.renew({ name: "n", owner: "o1", fence: 7, leaseMs: 100, sequence: 2, newOwner: "o2" }, 1_000, 0),
      LockRequests.release({ name: "n", owner: "o1", fence: undefined }, 0, 0),
      LockRequests.release({ name: "n", owner: "o1", fence: 7 }, 0, 0),
      LockRequests.forceRelease(undefined, 0, 0),
      LockRequests.forceRelease({ owner: "o1", fence: 7 }, 0, 0),
      LockRequests.reserve({ name: "n", owner: "o", reserveMs: 50, graceMs: 20, waitingSince: 9 }, 100)
    ]
    const used = (request: LockRequests.Request, sigil: string) =>
      [
        ...new Set(
          `${request.UpdateExpression} ${request.ConditionExpression}`.match(new RegExp(`${sigil}[A-Za-z0-9]+`, "g"))
        )
      ].sort()
    const attributes = new Set([...LockItem.attributeNames, LockItem.semaphoreAttribute])
    for (const request of requests) {
      expect(Object.keys(request.ExpressionAttributeNames).sort()).toEqual(used(request, "#"))
      expect(Object.keys(request.ExpressionAttributeValues).sort()).toEqual(used(request, ":"))
      for (const attribute of Object.values(request.ExpressionAttributeNames)) expect(attributes).toContain(attribute)
    }
    // One placeholder per attribute: no two stand for different attributes.
    const all = requests.flatMap((request) => Object.entries(request.ExpressionAttributeNames))
    expect(new Set(all.map(([placeholder]) => placeholder)).size).toBe(new Set(all.map(([, name]) => name)).size)
  })
})

const permits = {
  name: "s",
  owner: "me",
  holder: "h",
  permits: 2,
  limit: 5,
  leaseMs: 100,
  data: undefined,
  takeover: { _tag: "Absolute", maxClockSkewMs: 10 },
  create: false,
  expired: []
} as const

describe("semaphore writes", () => {
  it("removes expired holders with short placeholders, by time or by version", () => {
    const expired = [{ owner: "x", permits: 1, version: 4 }, { owner: "y", permits: 2, version: 6 }]
    const absolute = SemaphoreExpressions.acquire(permits, expired, 1_000, 9)
    expect(absolute.UpdateExpression).toContain("REMOVE #h.#x0, #f.#x0, #h.#x1, #f.#x1")
    expect(absolute.ConditionExpression).toContain("#h.#x1.#p = :p1 AND #h.#x1.#u < :c")
    expect(absolute.ExpressionAttributeValues[":c"]).toEqual({ N: "990" })
    expect(absolute.ExpressionAttributeValues[":delta"]).toEqual({ N: "-1" })
    const observed = SemaphoreExpressions.acquire(
      { ...permits, takeover: { _tag: "Observed" } },
      expired,
      1_000,
      9
    )
    expect(observed.ConditionExpression).toContain("#h.#x0.#v = :v0")
    expect(observed.ExpressionAttributeValues[":v1"]).toEqual({ N: "6" })
  })

  it("refuses a lease the table's TTL could outlive", () => {
    expect(SemaphoreWrites.outlivesTtl({ leaseMs: 89, takeover: permits.takeover }, 100)).toBeUndefined()
    expect(SemaphoreWrites.outlivesTtl({ leaseMs: 90, takeover: permits.takeover }, 100)).toContain(
      "a semaphore lease of 90 ms (plus 10 ms of clock skew) must be shorter than the store's ttlRetention (100 ms)"
    )
  })

  const semaphore: SemaphoreRecord = {
    name: "s",
    limit: 5,
    fence: 3,
    used: 2,
    holders: [{
      owner: "me",
      holder: "h",
      permits: 2,
      fence: 3,
      leaseUntil: 10,
      leaseMs: 10,
      version: 1,
      sequence: 4,
      acquiredAt: 0,
      data: undefined
    }]
  }

  it("reads acquire, renew and release answers", () => {
    expect(SemaphoreWrites.acquireConflict(permits, 2, semaphore)._tag).toBe("Acquired")
    expect(SemaphoreWrites.acquireConflict(permits, 1, semaphore)._tag).toBe("Conflict")
    expect(SemaphoreWrites.acquireConflict({ ...permits, limit: 4 }, 1, semaphore)).toEqual({
      _tag: "LimitMismatch",
      limit: 5
    })
    expect(SemaphoreWrites.acquired(semaphore, "other")).toBeUndefined()
    const renew = { name: "s", owner: "me", fence: 3, leaseMs: 10, sequence: 5 }
    expect(SemaphoreWrites.renewed(renew, semaphore, false)._tag).toBe("Renewed")
    expect(SemaphoreWrites.renewed(renew, semaphore, true)).toBe(SemaphoreWrites.lost)
    expect(SemaphoreWrites.renewed({ ...renew, fence: 2 }, semaphore, false)).toBe(SemaphoreWrites.lost)
    expect(SemaphoreWrites.releaseRetried(semaphore, "me")).toBe(SemaphoreWrites.notHeld)
    expect(SemaphoreWrites.releaseRetried(semaphore, "gone")).toBe(SemaphoreWrites.released)
  })

  it("answers a holder's failed condition at once, or reads the item where only it can tell", () => {
    const renew = { name: "s", owner: "me", fence: 3, leaseMs: 10, sequence: 4 }
    const { sequence: _, ...unordered } = renew
    expect(SemaphoreWrites.renewConflict(unordered)).toEqual({ _tag: "Answer", result: SemaphoreWrites.lost })
    expect(SemaphoreWrites.renewConflict(renew)).toEqual({ _tag: "ReadHolder" })
    // The holder's item shows this very renew: a retried request whose first attempt applied.
    expect(SemaphoreWrites.renewRead(renew, semaphore)._tag).toBe("Renewed")
    expect(SemaphoreWrites.renewRead({ ...renew, sequence: 5 }, semaphore)).toBe(SemaphoreWrites.lost)
    expect(SemaphoreWrites.renewRead(renew, undefined)).toBe(SemaphoreWrites.lost)
    expect(SemaphoreWrites.releaseConflict(1)).toEqual({ _tag: "Answer", result: SemaphoreWrites.notHeld })
    expect(SemaphoreWrites.releaseConflict(2)).toEqual({ _tag: "ReadHolder" })
    expect(SemaphoreWrites.releaseRetried(undefined, "me")).toBe(SemaphoreWrites.released)
  })
})
