/**
 * The conformance tests of removing holders whose leases are over, in the acquiring write: absolute (wall-clock
 * expiry) and observed (an unchanged version), a live holder kept, wrong entries refused whole, and as many removals
 * in one write as a semaphore can have holders.
 *
 * @internal
 */
import { describe, expect } from "@effect/vitest"
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
  limit,
  observedRemoval,
  ownersOf,
  releasePermitsOf,
  renewPermitsOf,
  takePermits
} from "./semaphoreHelpers.js"

/**
 * Registers the tests of removing expired holders.
 *
 * @internal
 */
export const semaphoreTakeover = (test: Test): void => {
  describe("expired holders", () => {
    absolute(test)
    observed(test)
    refused(test)
    atScale(test)
  })
}

const absolute = (test: Test): void => {
  for (const skew of [0, maxClockSkewMs]) {
    test(`absolute (skew ${skew} ms): not removed at leaseUntil + skew, removed 1 ms later in the acquiring write`, ({ name, store }) =>
      Effect.gen(function*() {
        const semaphoreName = name("expiring")
        const old = yield* takePermits(store, semaphoreName, { limit: 1 })
        const request = { limit: 1, takeover: absoluteRemoval(skew), expired: [expiredOf(old.record)] }
        yield* TestClock.adjust(leaseMs + skew)
        const atBoundary = expectTag(yield* attemptPermits(store, semaphoreName, request), "Conflict")
        expect(atBoundary.current).toEqual(old.semaphore)

        yield* TestClock.adjust(1)
        const owner = makeOwner()
        const taken = expectTag(yield* attemptPermits(store, semaphoreName, { ...request, owner }), "Acquired")
        expect(ownersOf(taken.semaphore)).toEqual([owner])
        expect(taken.semaphore.used).toBe(1)
        expect(taken.record.fence).toBeGreaterThan(old.record.fence)
        expect(yield* inspectSemaphoreSome(store, semaphoreName)).toEqual(taken.semaphore)
        // The removed holder's permits are gone: its renew is Lost, its release NotHeld.
        expectTag(yield* renewPermitsOf(store, old.record), "Lost")
        expectTag(yield* releasePermitsOf(store, old.record), "NotHeld")
        expect(yield* inspectSemaphoreSome(store, semaphoreName)).toEqual(taken.semaphore)
      }))
  }

  test("absolute: a live holder named as expired is not removed, and the write changes nothing", ({ name, store }) =>
    Effect.gen(function*() {
      const semaphoreName = name("live")
      const old = yield* takePermits(store, semaphoreName, { limit: 2 })
      yield* TestClock.adjust(leaseMs / 2)
      const live = yield* takePermits(store, semaphoreName, { limit: 2 })
      yield* TestClock.adjust(leaseMs / 2 + maxClockSkewMs + 1)
      // `old` is over, `live` is not: naming both fails the whole write.
      const both = { limit: 2, expired: [expiredOf(old.record), expiredOf(live.record)] }
      expect(expectTag(yield* attemptPermits(store, semaphoreName, both), "Conflict").current).toEqual(live.semaphore)
      // Naming only `old` frees its permit.
      const taken = expectTag(
        yield* attemptPermits(store, semaphoreName, { limit: 2, expired: [expiredOf(old.record)] }),
        "Acquired"
      )
      expect(ownersOf(taken.semaphore)).toEqual([live.record.owner, taken.record.owner])
    }))

  test("removing a holder of several permits frees them all; the acquirer takes what it needs", ({ name, store }) =>
    Effect.gen(function*() {
      const semaphoreName = name("several")
      const big = yield* takePermits(store, semaphoreName, { permits: 2 })
      const small = yield* takePermits(store, semaphoreName)
      yield* TestClock.adjust(leaseMs + maxClockSkewMs + 1)
      const taken = expectTag(
        yield* attemptPermits(store, semaphoreName, { permits: 2, expired: [expiredOf(big.record, 2)] }),
        "Acquired"
      )
      expect(taken.semaphore.used).toBe(limit)
      expect(ownersOf(taken.semaphore)).toEqual([small.record.owner, taken.record.owner])
    }))
}

const observed = (test: Test): void => {
  test("observed: a holder still at the version seen is removed, whatever the clocks say", ({ name, store }) =>
    Effect.gen(function*() {
      const semaphoreName = name("observed")
      const old = yield* takePermits(store, semaphoreName, { limit: 1, takeover: observedRemoval })
      // The caller watched the version stay put for a lease on its own clock; the wall clock says nothing here.
      const taken = expectTag(
        yield* attemptPermits(store, semaphoreName, {
          limit: 1,
          takeover: observedRemoval,
          expired: [expiredOf(old.record)]
        }),
        "Acquired"
      )
      expect(ownersOf(taken.semaphore)).toEqual([taken.record.owner])
      expect(taken.record.fence).toBeGreaterThan(old.record.fence)
    }))

  test("observed: a holder that renewed since it was seen is not removed", ({ name, store }) =>
    Effect.gen(function*() {
      const semaphoreName = name("observed-renewed")
      const old = yield* takePermits(store, semaphoreName, { limit: 1 })
      const renewed = expectTag(yield* renewPermitsOf(store, old.record), "Renewed").record
      yield* TestClock.adjust("1 hour")
      const request = { limit: 1, takeover: observedRemoval, expired: [expiredOf(old.record)] }
      const conflict = expectTag(yield* attemptPermits(store, semaphoreName, request), "Conflict")
      expect(conflict.current?.holders[0]?.version).toBe(renewed.version)
      expect(ownersOf(yield* inspectSemaphoreSome(store, semaphoreName))).toEqual([old.record.owner])
    }))
}

const refused = (test: Test): void => {
  test("a wrong expired entry (other permits, unknown owner) fails the write, which changes nothing", ({ name, store }) =>
    Effect.gen(function*() {
      const semaphoreName = name("wrong")
      const old = yield* takePermits(store, semaphoreName, { permits: 2 })
      const other = yield* takePermits(store, semaphoreName)
      yield* TestClock.adjust(leaseMs + maxClockSkewMs + 1)
      const before = yield* inspectSemaphoreSome(store, semaphoreName)
      const wrongs = [
        [expiredOf(old.record, 1)],
        [{ owner: makeOwner(), permits: 2, version: 1 }],
        [expiredOf(other.record), { owner: makeOwner(), permits: 1, version: 1 }]
      ]
      for (const expired of wrongs) {
        for (const takeover of [absoluteRemoval(), observedRemoval]) {
          const result = yield* attemptPermits(store, semaphoreName, { expired, takeover })
          expect(expectTag(result, "Conflict").current).toEqual(before)
        }
      }
      expect(yield* inspectSemaphoreSome(store, semaphoreName)).toEqual(before)
    }))

  test("a create ignores expired entries", ({ name, store }) =>
    Effect.gen(function*() {
      const created = expectTag(
        yield* attemptPermits(store, name("create"), {
          create: true,
          expired: [{ owner: makeOwner(), permits: 1, version: 1 }]
        }),
        "Acquired"
      )
      expect(created.semaphore.used).toBe(1)
    }))
}

const atScale = (test: Test): void => {
  for (const takeover of [absoluteRemoval(), observedRemoval]) {
    test(`${takeover._tag.toLowerCase()}: one write removes maxLimit expired holders`, ({ name, store }) =>
      Effect.gen(function*() {
        const semaphoreName = name("full")
        const max = SemaphoreRecord.maxLimit
        const holders = []
        for (let i = 0; i < max; i++) holders.push(yield* takePermits(store, semaphoreName, { limit: max }))
        yield* TestClock.adjust(leaseMs + maxClockSkewMs + 1)
        const taken = expectTag(
          yield* attemptPermits(store, semaphoreName, {
            limit: max,
            permits: max,
            takeover,
            expired: holders.map((held) => expiredOf(held.record))
          }),
          "Acquired"
        )
        expect(taken.semaphore.used).toBe(max)
        expect(ownersOf(taken.semaphore)).toEqual([taken.record.owner])
      }))
  }
}
