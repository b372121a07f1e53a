import { describe, expect, it } from "vitest"
import * as AcquireOwner from "../../src/acquire/AcquireOwner.js"
import * as LockAttempt from "../../src/acquire/LockAttempt.js"
import { freeRecord, lockRecord } from "./records.js"

const absolute: LockAttempt.AttemptOptions = {
  takeover: "absolute",
  maxClockSkewMs: 500,
  leaseMs: 3_000,
  safetyMarginMs: 300
}
const observed: LockAttempt.AttemptOptions = { ...absolute, takeover: "observed" }

describe("LockAttempt", () => {
  describe("observe", () => {
    it("remembers a holder from its first sighting while it stays in the same state", () => {
      const first = LockAttempt.observe(undefined, lockRecord({ version: 1 }), 100)
      expect(first).toEqual({ owner: "other", fence: 7, version: 1, leaseMs: 3_000, seenAt: 100 })
      expect(LockAttempt.observe(first, lockRecord({ version: 1 }), 900)).toBe(first)
    })

    it("sees a renewed or new holder afresh, and keeps what it knew when no holder is shown", () => {
      const first = LockAttempt.observe(undefined, lockRecord({ version: 1 }), 100)
      expect(LockAttempt.observe(first, lockRecord({ version: 2 }), 900)?.seenAt).toBe(900)
      expect(LockAttempt.observe(first, lockRecord({ owner: "third", version: 1 }), 900)?.seenAt).toBe(900)
      expect(LockAttempt.observe(first, undefined, 900)).toBe(first)
      expect(LockAttempt.observe(first, freeRecord(), 900)).toBe(first)
    })
  })

  describe("takeover", () => {
    it("trusts the clocks within the skew in absolute mode", () => {
      expect(LockAttempt.takeover(absolute, undefined, 0)).toEqual({ _tag: "Absolute", maxClockSkewMs: 500 })
    })

    it("names a holder as stale only once it was watched unchanged for its whole lease", () => {
      const seen = LockAttempt.observe(undefined, lockRecord(), 1_000)
      expect(LockAttempt.takeover(observed, undefined, 9_000)).toEqual({ _tag: "Observed", stale: undefined })
      expect(LockAttempt.takeover(observed, seen, 3_999)).toEqual({ _tag: "Observed", stale: undefined })
      expect(LockAttempt.takeover(observed, seen, 4_000)).toEqual({ _tag: "Observed", stale: seen })
    })
  })

  describe("untilTakeoverMs", () => {
    it("is nothing for a free lock", () => {
      expect(LockAttempt.untilTakeoverMs(absolute, undefined, undefined, 0, 0)).toBe(0)
      expect(LockAttempt.untilTakeoverMs(absolute, undefined, freeRecord(), 0, 0)).toBe(0)
      expect(LockAttempt.judgedByWallClock(absolute, freeRecord())).toBe(false)
    })

    it("counts to just past leaseUntil + skew on the wall clock in absolute mode", () => {
      expect(LockAttempt.judgedByWallClock(absolute, lockRecord())).toBe(true)
      expect(LockAttempt.untilTakeoverMs(absolute, undefined, lockRecord({ leaseUntil: 10_000 }), 0, 9_000)).toBe(1_501)
    })

    it("counts a full lease from the first sighting in observed mode, whatever the wall clock says", () => {
      expect(LockAttempt.judgedByWallClock(observed, lockRecord())).toBe(false)
      const seen = LockAttempt.observe(undefined, lockRecord(), 1_000)
      expect(LockAttempt.untilTakeoverMs(observed, seen, lockRecord(), 2_500, 0)).toBe(1_500)
      expect(LockAttempt.untilTakeoverMs(observed, undefined, lockRecord(), 2_500, 0)).toBe(3_000)
    })
  })

  describe("judge", () => {
    const ours = (owner = "me") => lockRecord({ owner })

    it("takes an acquired lock with a lease counted from the write", () => {
      const owner = AcquireOwner.make("me")
      const result = { _tag: "Acquired", record: ours() } as const
      expect(LockAttempt.judge({ options: absolute, owner, result, sentAt: 1_000, now: 1_040 }))
        .toEqual({ _tag: "Acquired", record: ours(), sentAt: 1_000 })
    })

    it("takes a conflict naming its own owner as acquired, dated from the earliest unknown write", () => {
      const owner = AcquireOwner.make("me")
      AcquireOwner.sending(owner, 400)
      AcquireOwner.failed(owner, true)
      const result = { _tag: "Conflict", current: ours() } as const
      expect(LockAttempt.judge({ options: absolute, owner, result, sentAt: 1_000, now: 1_040 }))
        .toEqual({ _tag: "Acquired", record: ours(), sentAt: 400 })
    })

    it("refuses a lease answered at or after the deadline it set", () => {
      const owner = AcquireOwner.make("me")
      const result = { _tag: "Acquired", record: ours() } as const
      // lease - safety margin = 2.7 s after the send.
      expect(LockAttempt.judge({ options: absolute, owner, result, sentAt: 1_000, now: 3_699 })._tag).toBe("Acquired")
      expect(LockAttempt.judge({ options: absolute, owner, result, sentAt: 1_000, now: 3_700 }))
        .toEqual({ _tag: "TooLate", answeredAfterMs: 2_700 })
    })

    it("reports someone else's holder, or none, as a conflict", () => {
      const owner = AcquireOwner.make("me")
      const current = lockRecord({ owner: "other" })
      expect(LockAttempt.judge({ options: absolute, owner, result: { _tag: "Conflict", current }, sentAt: 0, now: 1 }))
        .toEqual({ _tag: "Conflict", holder: current })
      expect(
        LockAttempt.judge({
          options: absolute,
          owner,
          result: { _tag: "Conflict", current: undefined },
          sentAt: 0,
          now: 1
        })
      ).toEqual({ _tag: "Conflict", holder: undefined })
    })
  })

  describe("afterConflict", () => {
    const options = { ...absolute, pollIntervalMs: 100 }
    const base = { options, owner: "me", waitingSince: 1_000, now: 5_000, wallNow: 1_050, waitUntil: Infinity }

    it("gives up once the wait is over, naming the holder only if the lock is held", () => {
      const held = lockRecord()
      expect(LockAttempt.afterConflict({ ...base, holder: held, waitUntil: 5_000 }))
        .toEqual({ _tag: "GiveUp", holder: held })
      expect(LockAttempt.afterConflict({ ...base, holder: freeRecord(), waitUntil: 5_000 }))
        .toEqual({ _tag: "GiveUp", holder: undefined })
    })

    it("reserves once a poll interval has been waited, for no longer than the wait has left, a turn ahead", () => {
      const held = lockRecord()
      expect(LockAttempt.afterConflict({ ...base, holder: held, wallNow: 1_100 }))
        .toEqual({ _tag: "Reserve", current: held, reserveMs: 400, graceMs: 100 })
      expect(LockAttempt.afterConflict({ ...base, holder: held, wallNow: 1_100, waitUntil: 5_150 }))
        .toEqual({ _tag: "Reserve", current: held, reserveMs: 150, graceMs: 100 })
    })

    it("sleeps without reserving before a poll interval has been waited, or with no record to reserve", () => {
      expect(LockAttempt.afterConflict({ ...base, holder: lockRecord() })).toEqual({ _tag: "Sleep" })
      expect(LockAttempt.afterConflict({ ...base, holder: undefined, wallNow: 1_100 })).toEqual({ _tag: "Sleep" })
    })
  })

  describe("sleepMs", () => {
    const options = { ...absolute, pollIntervalMs: 100 }
    const base = { options, owner: "me", observation: undefined, now: 5_000, pollMs: 80, waitingSince: 0 }

    it("sleeps a poll, or until the takeover on the clock it is judged by, whichever is sooner", () => {
      const record = lockRecord({ leaseUntil: 10_000 })
      expect(LockAttempt.sleepMs({ ...base, record, wallNow: 9_000, takeoverWallNow: 9_000 })).toBe(80)
      expect(LockAttempt.sleepMs({ ...base, record, wallNow: 9_000, takeoverWallNow: 10_480 })).toBe(21)
      expect(LockAttempt.sleepMs({ ...base, record: undefined, wallNow: 9_000, takeoverWallNow: 9_000 })).toBe(0)
    })

    it("follows the hold closely while it holds the reservation", () => {
      const record = lockRecord({ reservedBy: "me", reservedUntil: 9_400, acquiredAt: 8_970 })
      expect(LockAttempt.sleepMs({ ...base, record, wallNow: 9_000, takeoverWallNow: 9_000 })).toBe(30)
    })
  })

  it("names a holder only when a conflict showed one", () => {
    const held = lockRecord()
    expect(LockAttempt.heldOnly(held)).toBe(held)
    expect(LockAttempt.heldOnly(freeRecord())).toBeUndefined()
    expect(LockAttempt.lastHolder(undefined, { _tag: "Conflict", current: held })).toBe(held)
    expect(LockAttempt.lastHolder(held, { _tag: "Conflict", current: freeRecord() })).toBe(held)
    expect(LockAttempt.lastHolder(held, { _tag: "Conflict", current: undefined })).toBe(held)
    expect(LockAttempt.lastHolder(held, { _tag: "Acquired", record: lockRecord({ owner: "me" }) })).toBe(held)
  })
})
