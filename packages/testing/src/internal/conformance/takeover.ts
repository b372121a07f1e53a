/**
 * The conformance tests of `tryAcquire`'s takeover modes: absolute (wall-clock expiry) and observed.
 *
 * @internal
 */
import { expect } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { TestClock } from "../effectLine.js"
import { absolute, leaseMs, makeOwner, maxClockSkewMs, observed, type Test } from "./fixture.js"
import { acquireNew, attempt, expectFence, expectTag, fields, inspectSome, releaseOf, renewOf } from "./helpers.js"

/**
 * Takeover of an expired lease: exactly at the skew boundary, and of a released lock.
 *
 * @internal
 */
export const absoluteTakeover = (test: Test): void => {
  for (const skew of [0, maxClockSkewMs]) {
    test(`absolute (skew ${skew} ms): no takeover at leaseUntil + skew, takeover 1 ms later`, ({ expectCurrent, name, store }) =>
      Effect.gen(function*() {
        const held = yield* acquireNew(store, name("expiring"))
        yield* TestClock.adjust(leaseMs + skew)
        expect(yield* Clock.currentTimeMillis).toBe(held.leaseUntil + skew)
        const atBoundary = expectTag(yield* attempt(store, name("expiring"), absolute(skew)), "Conflict")
        expectCurrent(atBoundary.current, held)

        yield* TestClock.adjust(1)
        const now = yield* Clock.currentTimeMillis
        const owner = makeOwner()
        const taken = yield* acquireNew(store, name("expiring"), {
          owner,
          holder: "holder-b",
          takeover: absolute(skew)
        })
        expect(taken.owner).toBe(owner)
        expect(taken.holder).toBe("holder-b")
        expect(taken.leaseUntil).toBe(now + leaseMs)
        expect(taken.acquiredAt).toBe(now)
        expect(taken.fence).toBeGreaterThan(held.fence)
        expectFence(taken.fence)
      }))
  }

  test("absolute: a released lock is free at once, whatever its old lease", ({ name, store }) =>
    Effect.gen(function*() {
      const first = yield* acquireNew(store, name("released"))
      expectTag(yield* releaseOf(store, first), "Released")
      const second = yield* acquireNew(store, name("released"), { holder: "holder-b" })
      expect(second.fence).toBeGreaterThan(first.fence)
    }))
}

/**
 * Takeover after watching a record stay the same for a lease, and every way the observation can be out of date.
 *
 * @internal
 */
export const observedTakeover = (test: Test): void => {
  test("observed: without a stale observation a held lock conflicts, however old its lease", ({ expectCurrent, name, store }) =>
    Effect.gen(function*() {
      const held = yield* acquireNew(store, name("observed"))
      yield* TestClock.adjust("1 hour")
      const conflict = expectTag(yield* attempt(store, name("observed"), observed()), "Conflict")
      expectCurrent(conflict.current, held)
      expect(fields(yield* inspectSome(store, name("observed")))).toEqual(fields(held))
    }))

  test("observed: a stale observation that no longer matches conflicts (renewed, re-acquired, other owner)", ({ expectCurrent, name, store }) =>
    Effect.gen(function*() {
      const lockName = name("observed-mismatch")
      const held = yield* acquireNew(store, lockName)
      const seen = { owner: held.owner!, fence: held.fence, version: held.version }

      // The holder renewed after the observation started: its version moved.
      yield* TestClock.adjust(leaseMs / 3)
      const renewed = expectTag(yield* renewOf(store, held), "Renewed").record
      yield* TestClock.adjust(leaseMs)
      const afterRenew = expectTag(yield* attempt(store, lockName, observed(seen)), "Conflict")
      expectCurrent(afterRenew.current, renewed)

      const renewedSeen = { owner: renewed.owner!, fence: renewed.fence, version: renewed.version }
      const wrongOwner = { ...renewedSeen, owner: makeOwner() }
      expectTag(yield* attempt(store, lockName, observed(wrongOwner)), "Conflict")
      const wrongFence = { ...renewedSeen, fence: renewed.fence - 1 }
      expectTag(yield* attempt(store, lockName, observed(wrongFence)), "Conflict")

      // Released and re-acquired by someone else: the old observation is about a holder that is gone.
      expectTag(yield* releaseOf(store, renewed), "Released")
      const next = yield* acquireNew(store, lockName, { takeover: observed() })
      const afterHandover = expectTag(yield* attempt(store, lockName, observed(renewedSeen)), "Conflict")
      expectCurrent(afterHandover.current, next)
      expect(fields(yield* inspectSome(store, lockName))).toEqual(fields(next))
    }))

  test("observed: an observation taken before a renew at the same wall-clock time conflicts", ({ expectCurrent, name, store }) =>
    Effect.gen(function*() {
      const lockName = name("observed-still-clock")
      const held = yield* acquireNew(store, lockName)
      const seen = { owner: held.owner!, fence: held.fence, version: held.version }
      // The holder's wall clock stands still: its renew writes the same leaseUntil, and only the version moves.
      const renewed = expectTag(yield* renewOf(store, held), "Renewed").record
      expect(renewed.leaseUntil).toBe(held.leaseUntil)
      expect(renewed.version).not.toBe(held.version)
      // The observer waited a full lease on its own clock; the holder renewed meanwhile, so it is alive.
      yield* TestClock.adjust(leaseMs + 1)
      const conflict = expectTag(yield* attempt(store, lockName, observed(seen)), "Conflict")
      expectCurrent(conflict.current, renewed)
      expect(fields(yield* inspectSome(store, lockName))).toEqual(fields(renewed))
      // An observation of the renewed record, unchanged for a lease, does take over.
      const taken = yield* acquireNew(store, lockName, {
        takeover: observed({ owner: renewed.owner!, fence: renewed.fence, version: renewed.version })
      })
      expect(taken.fence).toBeGreaterThan(held.fence)
    }))

  test("observed: a matching stale observation takes over", ({ name, store }) =>
    Effect.gen(function*() {
      const lockName = name("observed-match")
      const held = yield* acquireNew(store, lockName)
      const conflict = expectTag(yield* attempt(store, lockName, observed()), "Conflict")
      const current = conflict.current ?? (yield* inspectSome(store, lockName))
      // The acquirer watched the version stay put for a full leaseMs on its own clock.
      yield* TestClock.adjust(current.leaseMs)
      const now = yield* Clock.currentTimeMillis
      const owner = makeOwner()
      const taken = yield* acquireNew(store, lockName, {
        owner,
        takeover: observed({ owner: current.owner!, fence: current.fence, version: current.version })
      })
      expect(taken.owner).toBe(owner)
      expect(taken.leaseUntil).toBe(now + leaseMs)
      expect(taken.fence).toBeGreaterThan(held.fence)
    }))

  test("observed: a free lock (new or released) is acquired without a stale observation", ({ name, store }) =>
    Effect.gen(function*() {
      const first = yield* acquireNew(store, name("observed-free"), { takeover: observed() })
      expectTag(yield* releaseOf(store, first), "Released")
      const second = yield* acquireNew(store, name("observed-free"), { takeover: observed() })
      expect(second.fence).toBeGreaterThan(first.fence)
    }))
}
