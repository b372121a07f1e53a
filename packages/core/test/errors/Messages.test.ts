import { describe, expect, it } from "vitest"
import * as DataMismatch from "../../src/errors/DataMismatch.js"
import * as Holder from "../../src/errors/Holder.js"
import * as LimitMismatch from "../../src/errors/LimitMismatch.js"
import * as Lost from "../../src/errors/Lost.js"
import * as NotAcquired from "../../src/errors/NotAcquired.js"
import * as LeaseSession from "../../src/session/LeaseSession.js"
import { lockRecord } from "../record/fixtures.js"

const holder = lockRecord({ owner: "abc", holder: "worker-1", fence: 7, leaseUntil: Date.UTC(2026, 0, 2, 3, 4, 5) })

describe("Holder.describe", () => {
  it("names the holder, its owner and fence and when its lease runs out", () => {
    expect(Holder.describe(holder)).toBe("worker-1 (owner abc, fence 7, lease until 2026-01-02T03:04:05.000Z)")
  })

  it("says that a lock under a lease session is held for as long as the session lives", () => {
    const under = lockRecord({ ...holder, leaseUntil: LeaseSession.heldUntil, session: "s1" })
    expect(Holder.describe(under)).toBe("worker-1 (owner abc, fence 7, under lease session s1)")
  })

  it("says what it does not know", () => {
    expect(Holder.describe(undefined)).toBe("an unknown holder")
    expect(Holder.describe(lockRecord())).toBe("an unknown holder")
    expect(Holder.describe(lockRecord({ owner: "x", leaseUntil: Infinity }))).toBe(
      "? (owner x, fence 0, lease until ?)"
    )
  })
})

describe("NotAcquired.message", () => {
  const base = { name: "orders/42", holder, waitedMs: 500 }

  it("says that the lease session it was asked under was lost, before anything else", () => {
    expect(NotAcquired.message({ ...base, session: "s1", unansweredAfterMs: 10 })).toMatch(
      /^lock "orders\/42" was not acquired: its lease session s1 was lost before the lock was held under it/
    )
  })

  it("names the holder of a held lock", () => {
    expect(NotAcquired.message(base)).toBe(
      `lock "orders/42" is held by ${Holder.describe(holder)}; gave up after 500 ms (raise the "wait" option to wait ` +
        `longer)`
    )
  })

  it("says how full a semaphore was", () => {
    expect(NotAcquired.message({ ...base, permits: { wanted: 2, limit: 4, used: 3, holders: 2 } })).toBe(
      `semaphore "orders/42" has no 2 free of its 4 permits (3 held by 2 holders); gave up after 500 ms (raise the ` +
        `"wait" option to wait longer)`
    )
  })

  it("puts a store that never answered before one that answered late, and both before another holder", () => {
    const late = NotAcquired.message({
      ...base,
      answeredAfterMs: 40,
      permits: { wanted: 1, limit: 1, used: 1, holders: 1 }
    })
    expect(late).toMatch(/^semaphore "orders\/42" was acquired, but the store's answer came 40 ms after the request/)
    const unanswered = NotAcquired.message({ ...base, answeredAfterMs: 40, unansweredAfterMs: 90 })
    expect(unanswered).toMatch(/^lock "orders\/42" was not acquired: the store had not answered 90 ms after "wait"/)
    expect(unanswered).toContain("abandoned after 500 ms")
  })
})

describe("Lost.message", () => {
  const lost = (reason: Lost.Reason, permits?: number) =>
    Lost.message({ name: "n", fence: 3, reason, by: holder, permits })

  it("says for each reason what happened and where to look", () => {
    expect(lost("expired")).toBe(
      `lock "n" (fence 3) was lost: its lease ran out before a renew succeeded (is the store reachable? is the ` +
        `process pausing for longer than the lease?)`
    )
    expect(lost("stolen")).toBe(`lock "n" (fence 3) was lost: it is now held by ${Holder.describe(holder)}`)
    expect(lost("freed")).toMatch(/^lock "n" \(fence 3\) was lost: the store shows it free.*release --force/)
    expect(lost("released")).toMatch(/^lock "n" \(fence 3\) was released while still in use/)
    expect(lost("handedOff")).toBe(
      `lock "n" (fence 3) was handed off to another process (Lock.handOff); this process may no longer act under it`
    )
  })

  it("says that a lock held under a lease session was lost with it, and why the session was", () => {
    const under = (reason: Lost.Reason) => Lost.message({ name: "n", fence: 3, reason, by: undefined, session: "s1" })
    expect(under("expired")).toMatch(
      /^lock "n" \(fence 3\) was lost with its lease session s1: the session's lease ran out/
    )
    expect(under("freed")).toMatch(/^lock "n" \(fence 3\) was lost with its lease session s1: the session's record/)
    expect(under("handedOff")).toMatch(/was handed off to another process/)
  })

  it("speaks of permits for a semaphore, which has no new holder to name", () => {
    expect(lost("expired", 2)).toMatch(/^2 permit\(s\) of semaphore "n" \(fence 3\) was lost: its lease ran out/)
    expect(lost("stolen", 2)).toBe(
      `2 permit(s) of semaphore "n" (fence 3) was lost: they are no longer in the semaphore's record (given back in ` +
        `this holder's place, or taken over as expired)`
    )
  })
})

describe("DataMismatch.message", () => {
  it("says nothing was written for a value that does not encode", () => {
    expect(DataMismatch.message({ name: "n", direction: "encode", causeMessage: "Expected number" })).toBe(
      `the data for lock "n" does not fit the lock's schema, so nothing was written: Expected number`
    )
  })

  it("asks whether another program stored data that does not decode", () => {
    const message = DataMismatch.message({ name: "n", direction: "decode", causeMessage: "Expected number" })
    expect(message).toMatch(/^lock "n" holds data that does not fit this lock's schema \(was it stored by another/)
    expect(message.endsWith(": Expected number")).toBe(true)
  })
})

describe("LimitMismatch.message", () => {
  it("gives both limits", () => {
    expect(LimitMismatch.message({ name: "pool", limit: 3, storedLimit: 5 })).toBe(
      `semaphore "pool" has a limit of 5 in the store, but this acquisition asked with 3: every process that shares ` +
        `the name must use the same limit`
    )
  })
})
