/**
 * The conformance tests of a semaphore's permits held under a lease session: what an acquire under one writes, that
 * no lease of its own ever lets the holder be removed, that only a removal naming the holder's session removes it,
 * and that a renew takes the holder out of its session.
 *
 * @internal
 */
import { describe, expect } from "@effect/vitest"
import * as LeaseSession from "@leasehold/core/session/LeaseSession"
import * as SemaphoreRecord from "@leasehold/lock/SemaphoreRecord"
import * as Effect from "effect/Effect"
import { TestClock } from "../effectLine.js"
import { leaseMs, makeOwner, maxClockSkewMs, type Test } from "./fixture.js"
import { expectTag } from "./helpers.js"
import {
  absoluteRemoval,
  attemptPermits,
  expiredOf,
  inspectSemaphoreSome,
  observedRemoval,
  ownersOf,
  releasePermitsOf,
  renewPermitsOf,
  takePermits
} from "./semaphoreHelpers.js"

/** A year: far past any lease and skew bound a test uses. */
const aYear = 365 * 24 * 3600 * 1000

/**
 * Registers the tests of permits under a lease session.
 *
 * @internal
 */
export const semaphoreSessions = (test: Test): void => {
  describe("permits under a lease session", () => {
    holding(test)
    removing(test)
  })
}

const holding = (test: Test): void => {
  test("an acquire under a session names it, with LeaseSession.heldUntil as the holder's lease end and lease", ({ name, store }) =>
    Effect.gen(function*() {
      const session = makeOwner()
      // The first acquire creates the record, the second joins it: both write the holder alike.
      const created = yield* takePermits(store, name("under"), { session })
      const joined = yield* takePermits(store, name("under"), { session })
      for (const { record } of [created, joined]) {
        expect([record.session, record.leaseUntil, record.leaseMs]).toEqual([
          session,
          LeaseSession.heldUntil,
          LeaseSession.heldUntil
        ])
        expect(LeaseSession.sessionOf(record)).toBe(session)
      }
      const read = yield* inspectSemaphoreSome(store, name("under"))
      expect(read).toEqual(joined.semaphore)
      expect(read.holders.map((holder) => holder.session)).toEqual([session, session])
    }))

  // Observed removal trusts the acquirer's watch of the version, which a holder under a session never lets end: its
  // `leaseMs` is `LeaseSession.heldUntil`. Absolute removal is the store's own judgement of the lease end.
  test("a holder under a session is never removed by its lease end, however late, with or without a skew bound", ({ name, store }) =>
    Effect.gen(function*() {
      const held = yield* takePermits(store, name("kept"), { limit: 1, session: makeOwner() })
      yield* TestClock.adjust(aYear)
      for (const takeover of [absoluteRemoval(0), absoluteRemoval()]) {
        const refused = expectTag(
          yield* attemptPermits(store, name("kept"), { limit: 1, takeover, expired: [expiredOf(held.record)] }),
          "Conflict"
        )
        expect(refused.current).toEqual(held.semaphore)
      }
    }))

  test("a renew takes the holder out of its session, onto a lease of its own; a release frees its permits", ({ name, store }) =>
    Effect.gen(function*() {
      const held = yield* takePermits(store, name("renewed"), { session: makeOwner() })
      const renewed = expectTag(yield* renewPermitsOf(store, held.record), "Renewed").record
      expect([renewed.session, LeaseSession.sessionOf(renewed), renewed.leaseMs]).toEqual([
        undefined,
        undefined,
        leaseMs
      ])
      const read = yield* inspectSemaphoreSome(store, name("renewed"))
      expect(read.holders[0]?.session).toBeUndefined()

      const under = yield* takePermits(store, name("released"), { session: makeOwner(), permits: 2 })
      expectTag(yield* releasePermitsOf(store, under.record, 2), "Released")
      const after = yield* inspectSemaphoreSome(store, name("released"))
      expect([after.used, after.holders]).toEqual([0, []])
    }))
}

const removing = (test: Test): void => {
  for (const takeover of [absoluteRemoval(), observedRemoval]) {
    test(`${takeover._tag.toLowerCase()}: a removal naming the holder's session removes it, with a lease-expired holder in the same write`, ({ name, store }) =>
      Effect.gen(function*() {
        const semaphoreName = name("orphaned")
        const session = makeOwner()
        const orphan = yield* takePermits(store, semaphoreName, { limit: 2, session, takeover })
        const expiring = yield* takePermits(store, semaphoreName, { limit: 2, takeover })
        yield* TestClock.adjust(leaseMs + maxClockSkewMs + 1)
        const owner = makeOwner()
        const taken = expectTag(
          yield* attemptPermits(store, semaphoreName, {
            owner,
            limit: 2,
            permits: 2,
            takeover,
            expired: [{ ...expiredOf(orphan.record), session }, expiredOf(expiring.record)]
          }),
          "Acquired"
        )
        expect(ownersOf(taken.semaphore)).toEqual([owner])
        expect(taken.record.fence).toBeGreaterThan(expiring.record.fence)
        expect(taken.record.session).toBeUndefined()
        expectTag(yield* releasePermitsOf(store, orphan.record), "NotHeld")
      }))
  }

  test("a removal naming another session, or a session for a holder on its own lease, fails the write whole", ({ name, store }) =>
    Effect.gen(function*() {
      const semaphoreName = name("wrong-session")
      const session = makeOwner()
      const under = yield* takePermits(store, semaphoreName, { limit: 2, session })
      const own = yield* takePermits(store, semaphoreName, { limit: 2 })
      yield* TestClock.adjust(aYear)
      const before = yield* inspectSemaphoreSome(store, semaphoreName)
      const wrongs = [
        [{ ...expiredOf(under.record), session: makeOwner() }],
        [{ ...expiredOf(own.record), session }],
        [{ ...expiredOf(under.record), session }, { ...expiredOf(own.record), session }]
      ]
      for (const expired of wrongs) {
        const refused = expectTag(
          yield* attemptPermits(store, semaphoreName, { limit: 2, permits: 2, expired }),
          "Conflict"
        )
        expect(refused.current).toEqual(before)
      }
      // Renewed since it was judged, the holder is on a lease of its own: the session's verdict no longer removes it.
      yield* renewPermitsOf(store, under.record)
      const renewed = expectTag(
        yield* attemptPermits(store, semaphoreName, {
          limit: 2,
          expired: [{ ...expiredOf(under.record), session }, expiredOf(own.record)]
        }),
        "Conflict"
      )
      expect(renewed.current?.holders.find((holder) => holder.owner === under.record.owner)?.session).toBeUndefined()
    }))

  test("one write removes maxLimit holders of dead sessions", ({ name, store }) =>
    Effect.gen(function*() {
      const semaphoreName = name("full")
      const max = SemaphoreRecord.maxLimit
      const session = makeOwner()
      const holders = []
      for (let i = 0; i < max; i++) holders.push(yield* takePermits(store, semaphoreName, { limit: max, session }))
      const owner = makeOwner()
      const taken = expectTag(
        yield* attemptPermits(store, semaphoreName, {
          owner,
          limit: max,
          permits: max,
          expired: holders.map((held) => ({ ...expiredOf(held.record), session }))
        }),
        "Acquired"
      )
      expect(ownersOf(taken.semaphore)).toEqual([owner])
    }))
}
