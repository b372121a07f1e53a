import { describe, expect, it } from "vitest"
import * as AcquireOwner from "../../src/acquire/AcquireOwner.js"
import * as PermitAttempt from "../../src/acquire/PermitAttempt.js"
import { permitRecord } from "../../src/record/SemaphoreRecord.js"
import * as LeaseSession from "../../src/session/LeaseSession.js"
import type * as SessionVerdict from "../../src/session/SessionVerdict.js"
import { lockRecord, permitHolder, semaphoreRecord } from "./records.js"

const absolute: PermitAttempt.AttemptOptions = {
  takeover: "absolute",
  maxClockSkewMs: 500,
  leaseMs: 3_000,
  safetyMarginMs: 300,
  permits: 2,
  limit: 3
}
const observed: PermitAttempt.AttemptOptions = { ...absolute, takeover: "observed" }

describe("PermitAttempt", () => {
  it("asks the store to take over by the clocks, or by what it observed", () => {
    expect(PermitAttempt.takeover(absolute)).toEqual({ _tag: "Absolute", maxClockSkewMs: 500 })
    expect(PermitAttempt.takeover(observed)).toEqual({ _tag: "Observed" })
  })

  it("sees each holder from its first sighting at a version, and forgets the holders that are gone", () => {
    const a = permitHolder({ owner: "a", version: 1 })
    const b = permitHolder({ owner: "b", version: 1 })
    const first = PermitAttempt.observe(new Map(), semaphoreRecord(3, [a, b]), 100)
    expect([...first]).toEqual([["a", { version: 1, seenAt: 100 }], ["b", { version: 1, seenAt: 100 }]])
    const second = PermitAttempt.observe(first, semaphoreRecord(3, [{ ...a, version: 2 }, b]), 500)
    expect([...second]).toEqual([["a", { version: 2, seenAt: 500 }], ["b", { version: 1, seenAt: 100 }]])
    const third = PermitAttempt.observe(second, semaphoreRecord(3, [b]), 900)
    expect([...third]).toEqual([["b", { version: 1, seenAt: 100 }]])
  })

  it("counts a holder over past leaseUntil + skew (absolute) or a lease after its sighting (observed)", () => {
    const holder = permitHolder({ owner: "a", leaseUntil: 10_000, leaseMs: 3_000 })
    expect(PermitAttempt.untilOverMs(absolute, new Map(), holder, 10_000, 0)).toBe(501)
    expect(PermitAttempt.untilOverMs(absolute, new Map(), holder, 10_501, 0)).toBe(0)
    const seen = new Map([["a", { version: 1, seenAt: 1_000 }]])
    expect(PermitAttempt.untilOverMs(observed, seen, holder, 0, 2_000)).toBe(2_000)
    expect(PermitAttempt.untilOverMs(observed, new Map(), holder, 0, 2_000)).toBe(3_000)
  })

  describe("plan", () => {
    const args = { options: absolute, owner: "me", sightings: new Map(), now: 0, pollMs: 90 }

    it("goes at once, removing the holders that are over, when that makes room", () => {
      const over = permitHolder({ owner: "a", permits: 2, leaseUntil: 1_000, version: 4 })
      const live = permitHolder({ owner: "b", permits: 1, leaseUntil: 20_000 })
      expect(PermitAttempt.plan({ ...args, record: semaphoreRecord(3, [over, live]), wallNow: 5_000 }))
        .toEqual({ _tag: "Now", expired: [{ owner: "a", permits: 2, version: 4 }] })
    })

    it("goes at once with nothing to remove when the permits fit already", () => {
      const live = permitHolder({ owner: "b", permits: 1, leaseUntil: 20_000 })
      expect(PermitAttempt.plan({ ...args, record: semaphoreRecord(3, [live]), wallNow: 5_000 }))
        .toEqual({ _tag: "Now", expired: [] })
    })

    it("sleeps until the next holder could be over, or a poll, when removing does not make room", () => {
      const soon = permitHolder({ owner: "a", permits: 2, leaseUntil: 5_000 })
      const live = permitHolder({ owner: "b", permits: 1, leaseUntil: 20_000 })
      const record = semaphoreRecord(3, [soon, live])
      expect(PermitAttempt.plan({ ...args, record, wallNow: 5_480 })).toEqual({ _tag: "Sleep", sleepMs: 21 })
      expect(PermitAttempt.plan({ ...args, record, wallNow: 4_000 })).toEqual({ _tag: "Sleep", sleepMs: 90 })
    })

    it("never removes its own entry", () => {
      const mine = permitHolder({ owner: "me", permits: 2, leaseUntil: 1_000 })
      const live = permitHolder({ owner: "b", permits: 1, leaseUntil: 20_000 })
      expect(PermitAttempt.plan({ ...args, record: semaphoreRecord(3, [mine, live]), wallNow: 5_000 }))
        .toEqual({ _tag: "Sleep", sleepMs: 90 })
    })
  })

  describe("plan, with holders under lease sessions", () => {
    const args = { options: observed, owner: "me", sightings: new Map(), now: 0, pollMs: 90, wallNow: 5_000 }
    const underSession = (owner: string, session: string, permits = 1) =>
      permitHolder({ owner, permits, leaseUntil: LeaseSession.heldUntil, leaseMs: LeaseSession.heldUntil, session })
    const dead: SessionVerdict.Verdict = { _tag: "Dead" }
    const alive = (untilJudgedMs: number): SessionVerdict.Verdict => ({
      _tag: "Alive",
      untilJudgedMs,
      observation: undefined
    })

    it("names each other holder's session once, and not its own", () => {
      const record = semaphoreRecord(3, [underSession("a", "s1"), underSession("b", "s1"), underSession("me", "s2")])
      expect(PermitAttempt.sessionsToJudge(record, "me")).toEqual(["s1"])
      expect(PermitAttempt.sessionsToJudge(semaphoreRecord(3, [permitHolder({ owner: "c" })]), "me")).toEqual([])
    })

    it("removes the holders of a dead session, naming it, whatever their lease fields say", () => {
      const record = semaphoreRecord(3, [underSession("a", "s1", 2), underSession("b", "s2")])
      const sessions = new Map([["s1", dead], ["s2", alive(700)]])
      expect(PermitAttempt.plan({ ...args, record, sessions }))
        .toEqual({ _tag: "Now", expired: [{ owner: "a", permits: 2, version: 1, session: "s1" }] })
    })

    it("sleeps until a live session could be judged dead, or a poll, and never removes an unjudged one", () => {
      const record = semaphoreRecord(3, [underSession("a", "s1", 2), underSession("b", "s2")])
      expect(PermitAttempt.plan({ ...args, record, sessions: new Map([["s1", alive(40)]]) }))
        .toEqual({ _tag: "Sleep", sleepMs: 40 })
      expect(PermitAttempt.plan({ ...args, record, sessions: new Map() })).toEqual({ _tag: "Sleep", sleepMs: 90 })
    })
  })

  describe("next", () => {
    const now: PermitAttempt.Plan = { _tag: "Now", expired: [] }
    const sleep: PermitAttempt.Plan = { _tag: "Sleep", sleepMs: 40 }

    it("goes again at once a few times in a row, then waits a poll like any conflict", () => {
      expect(PermitAttempt.next(now, PermitAttempt.maxEagerAttempts - 1, 0, 0)).toEqual({ _tag: "Again" })
      expect(PermitAttempt.next(now, PermitAttempt.maxEagerAttempts, 0, Infinity))
        .toEqual({ _tag: "Sleep", sleepMs: undefined })
    })

    it("sleeps as planned, or gives up once the wait is over", () => {
      expect(PermitAttempt.next(sleep, 1, 0, Infinity)).toEqual({ _tag: "Sleep", sleepMs: 40 })
      expect(PermitAttempt.next(sleep, 1, 100, 100)).toEqual({ _tag: "GiveUp" })
      expect(PermitAttempt.next(now, PermitAttempt.maxEagerAttempts, 100, 100)).toEqual({ _tag: "GiveUp" })
    })
  })

  describe("judge", () => {
    const options = absolute

    it("takes acquired permits, and its own entry in a conflict, dated from the earliest unknown write", () => {
      const owner = AcquireOwner.make("me")
      const record = lockRecord({ owner: "me" })
      const semaphore = semaphoreRecord(3, [])
      expect(
        PermitAttempt.judge({
          options,
          name: "pool",
          owner,
          result: { _tag: "Acquired", record, semaphore },
          sentAt: 10,
          now: 20
        })
      ).toEqual({ _tag: "Acquired", record, sentAt: 10 })
      AcquireOwner.sending(owner, 5)
      AcquireOwner.failed(owner, undefined)
      const entry = permitHolder({ owner: "me" })
      const current = semaphoreRecord(3, [permitHolder({ owner: "b" }), entry])
      expect(
        PermitAttempt.judge({
          options,
          name: "pool",
          owner,
          result: { _tag: "Conflict", current },
          sentAt: 10,
          now: 20
        })
      )
        .toEqual({ _tag: "Acquired", record: permitRecord("pool", entry), sentAt: 5 })
    })

    it("refuses permits answered at or after the deadline they set", () => {
      const owner = AcquireOwner.make("me")
      const result = {
        _tag: "Acquired",
        record: lockRecord({ owner: "me" }),
        semaphore: semaphoreRecord(3, [])
      } as const
      expect(PermitAttempt.judge({ options, name: "pool", owner, result, sentAt: 0, now: 2_700 }))
        .toEqual({ _tag: "TooLate", answeredAfterMs: 2_700 })
    })

    it("passes a conflict and a limit mismatch on", () => {
      const owner = AcquireOwner.make("me")
      const current = semaphoreRecord(3, [permitHolder({ owner: "b" })])
      expect(
        PermitAttempt.judge({ options, name: "pool", owner, result: { _tag: "Conflict", current }, sentAt: 0, now: 1 })
      )
        .toEqual({ _tag: "Conflict", current })
      expect(
        PermitAttempt.judge({
          options,
          name: "pool",
          owner,
          result: { _tag: "Conflict", current: undefined },
          sentAt: 0,
          now: 1
        })
      ).toEqual({ _tag: "Conflict", current: undefined })
      expect(
        PermitAttempt.judge({
          options,
          name: "pool",
          owner,
          result: { _tag: "LimitMismatch", limit: 5 },
          sentAt: 0,
          now: 1
        })
      )
        .toEqual({ _tag: "LimitMismatch", storedLimit: 5 })
    })
  })

  it("says how far the permits were from fitting, as last seen", () => {
    const record = semaphoreRecord(3, [permitHolder({ owner: "a", permits: 2 }), permitHolder({ owner: "b" })])
    expect(PermitAttempt.shortage(absolute, record)).toEqual({ wanted: 2, limit: 3, used: 3, holders: 2 })
    expect(PermitAttempt.shortage(absolute, undefined)).toEqual({ wanted: 2, limit: 3, used: 0, holders: 0 })
  })
})
