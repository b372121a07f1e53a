/**
 * The conformance tests of the semaphore operations: acquiring up to the limit, fences, renew, release, the limit
 * every process must agree on, creating the record, and semaphores apart from locks. Removing expired holders is in
 * `semaphoreTakeover.ts`, permits under a lease session in `semaphoreSessions.ts`, reservations in
 * `semaphoreReservations.ts`, refused requests in `semaphoreChecks.ts`.
 *
 * @internal
 */
import { describe, expect } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { TestClock } from "../effectLine.js"
import { leaseMs, makeOwner, type Test } from "./fixture.js"
import { acquireNew, expectFence, expectTag, fields, inspectSome, listAll, releaseOf } from "./helpers.js"
import { semaphoreChecks } from "./semaphoreChecks.js"
import {
  attemptPermits,
  expectNoSemaphore,
  inspectSemaphoreSome,
  limit,
  ownersOf,
  releasePermitsOf,
  renewPermitsOf,
  takePermits
} from "./semaphoreHelpers.js"
import { semaphoreReservations } from "./semaphoreReservations.js"
import { semaphoreSessions } from "./semaphoreSessions.js"
import { semaphoreTakeover } from "./semaphoreTakeover.js"

/**
 * Registers the semaphore tests.
 *
 * @internal
 */
export const semaphore = (test: Test): void => {
  describe("semaphore", () => {
    acquiring(test)
    releasing(test)
    renewing(test)
    agreeing(test)
    apart(test)
    semaphoreTakeover(test)
    semaphoreSessions(test)
    semaphoreReservations(test)
    semaphoreChecks(test)
  })
}

const acquiring = (test: Test): void => {
  test("acquires up to the limit, then conflicts with the record and changes nothing", ({ name, store }) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const owner = makeOwner()
      const semaphoreName = name("pool")
      expect(expectTag(yield* attemptPermits(store, semaphoreName, { owner }), "Conflict").current).toBeUndefined()
      yield* expectNoSemaphore(store, semaphoreName)
      const first = yield* attemptPermits(store, semaphoreName, { owner, holder: "worker-1", data: "d", create: true })
      const { record, semaphore } = expectTag(first, "Acquired")
      expect(record).toEqual({
        name: semaphoreName,
        owner,
        holder: "worker-1",
        leaseUntil: now + leaseMs,
        leaseMs,
        fence: record.fence,
        version: record.version,
        sequence: 0,
        acquiredAt: now,
        data: "d",
        reservedBy: undefined,
        reservedUntil: 0,
        reservedSince: 0,
        reservedFrom: 0
      })
      expectFence(record.fence)
      // A new semaphore's fence starts from the clock, as a new lock's.
      expect(record.fence).toBeGreaterThanOrEqual(now)
      expect(semaphore).toEqual({
        name: semaphoreName,
        limit,
        fence: record.fence,
        used: 1,
        holders: [{
          owner,
          holder: "worker-1",
          permits: 1,
          fence: record.fence,
          leaseUntil: now + leaseMs,
          leaseMs,
          version: record.version,
          sequence: 0,
          acquiredAt: now,
          data: "d"
        }]
      })
      expect(yield* inspectSemaphoreSome(store, semaphoreName)).toEqual(semaphore)

      const second = yield* takePermits(store, semaphoreName)
      const third = yield* takePermits(store, semaphoreName)
      expect(third.semaphore.used).toBe(limit)
      expect(ownersOf(third.semaphore)).toEqual([owner, second.record.owner, third.record.owner])
      const conflict = expectTag(yield* attemptPermits(store, semaphoreName), "Conflict")
      expect(conflict.current).toEqual(third.semaphore)
      expect(yield* inspectSemaphoreSome(store, semaphoreName)).toEqual(third.semaphore)
    }))

  test("takes several permits at once, and only as many as are free", ({ name, store }) =>
    Effect.gen(function*() {
      const semaphoreName = name("multi")
      const big = yield* takePermits(store, semaphoreName, { limit: 5, permits: 3 })
      expect(big.semaphore.holders[0]?.permits).toBe(3)
      const tooMany = expectTag(yield* attemptPermits(store, semaphoreName, { limit: 5, permits: 3 }), "Conflict")
      expect(tooMany.current).toEqual(big.semaphore)
      const rest = yield* takePermits(store, semaphoreName, { limit: 5, permits: 2 })
      expect(rest.semaphore.used).toBe(5)
      expectTag(yield* attemptPermits(store, semaphoreName, { limit: 5, permits: 1 }), "Conflict")
      // The whole limit at once, on a fresh semaphore.
      const whole = yield* takePermits(store, name("whole"), { limit: 5, permits: 5 })
      expect(whole.semaphore.used).toBe(5)
    }))

  test("fences strictly increase across acquisitions and releases; the record keeps the last", ({ name, store }) =>
    Effect.gen(function*() {
      const semaphoreName = name("fences")
      const fences: Array<number> = []
      const a = yield* takePermits(store, semaphoreName)
      const b = yield* takePermits(store, semaphoreName)
      fences.push(a.record.fence, b.record.fence)
      expectTag(yield* releasePermitsOf(store, b.record), "Released")
      expectTag(yield* releasePermitsOf(store, a.record), "Released")
      const empty = yield* inspectSemaphoreSome(store, semaphoreName)
      expect(empty).toEqual({ name: semaphoreName, limit, fence: b.record.fence, used: 0, holders: [] })
      // The record outlives its holders: the next acquire finds it, with no create.
      const c = expectTag(yield* attemptPermits(store, semaphoreName), "Acquired")
      const d = yield* takePermits(store, semaphoreName)
      fences.push(c.record.fence, d.record.fence)
      for (let i = 1; i < fences.length; i++) expect(fences[i]).toBeGreaterThan(fences[i - 1]!)
      expect(d.semaphore.fence).toBe(d.record.fence)
      expect(d.semaphore.holders.map((holder) => holder.fence)).toEqual([c.record.fence, d.record.fence])
    }))

  test("the same owner can not hold twice: a second acquire conflicts", ({ name, store }) =>
    Effect.gen(function*() {
      const owner = makeOwner()
      const held = yield* takePermits(store, name("twice"), { owner })
      const again = expectTag(yield* attemptPermits(store, name("twice"), { owner }), "Conflict")
      expect(again.current).toEqual(held.semaphore)
    }))
}

const releasing = (test: Test): void => {
  test("release frees the holder's permits for the next acquirer", ({ name, store }) =>
    Effect.gen(function*() {
      const semaphoreName = name("release")
      const a = yield* takePermits(store, semaphoreName, { limit: 2 })
      const b = yield* takePermits(store, semaphoreName, { limit: 2 })
      expectTag(yield* attemptPermits(store, semaphoreName, { limit: 2 }), "Conflict")
      expectTag(yield* releasePermitsOf(store, a.record), "Released")
      const after = yield* inspectSemaphoreSome(store, semaphoreName)
      expect(after.used).toBe(1)
      expect(ownersOf(after)).toEqual([b.record.owner])
      const c = yield* takePermits(store, semaphoreName, { limit: 2 })
      expect(ownersOf(c.semaphore)).toEqual([b.record.owner, c.record.owner])
    }))

  test("release is NotHeld for a wrong owner, fence or permit count, or twice, and changes nothing", ({ name, store }) =>
    Effect.gen(function*() {
      const semaphoreName = name("guarded")
      const held = yield* takePermits(store, semaphoreName, { permits: 2 })
      const { record } = held
      const wrong = [
        { name: semaphoreName, owner: makeOwner(), fence: record.fence, permits: 2 },
        { name: semaphoreName, owner: makeOwner(), fence: undefined, permits: 2 },
        { name: semaphoreName, owner: record.owner!, fence: record.fence + 1, permits: 2 },
        { name: semaphoreName, owner: record.owner!, fence: record.fence, permits: 1 },
        { name: semaphoreName, owner: record.owner!, fence: undefined, permits: 3 }
      ]
      for (const request of wrong) {
        const result = expectTag(yield* store.releasePermits(request), "NotHeld")
        expect(result.current).toBeUndefined()
      }
      expect(yield* inspectSemaphoreSome(store, semaphoreName)).toEqual(held.semaphore)
      // By owner alone (fence unknown: an acquire whose answer never came) it releases.
      const ownerOnly = { name: semaphoreName, owner: record.owner!, fence: undefined, permits: 2 }
      expectTag(yield* store.releasePermits(ownerOnly), "Released")
      expectTag(yield* store.releasePermits(ownerOnly), "NotHeld")
      expect((yield* inspectSemaphoreSome(store, semaphoreName)).used).toBe(0)
    }))

  test("release of a semaphore never acquired is NotHeld and creates no record", ({ name, store }) =>
    Effect.gen(function*() {
      const result = yield* store.releasePermits({ name: name("ghost"), owner: makeOwner(), fence: 1, permits: 1 })
      expect(expectTag(result, "NotHeld").current).toBeUndefined()
      yield* expectNoSemaphore(store, name("ghost"))
    }))
}

const renewing = (test: Test): void => {
  test("renew extends the holder's lease from now and changes its version, nobody else's", ({ name, store }) =>
    Effect.gen(function*() {
      const semaphoreName = name("renew")
      const a = yield* takePermits(store, semaphoreName, { data: "kept" })
      const b = yield* takePermits(store, semaphoreName)
      yield* TestClock.adjust(5_000)
      const now = yield* Clock.currentTimeMillis
      const renewed = expectTag(yield* renewPermitsOf(store, a.record, 20_000), "Renewed").record
      expect(renewed).toEqual({ ...a.record, leaseUntil: now + 20_000, leaseMs: 20_000, version: renewed.version })
      expect(renewed.version).not.toBe(a.record.version)
      const record = yield* inspectSemaphoreSome(store, semaphoreName)
      expect(record.holders[0]).toMatchObject({ owner: a.record.owner, leaseUntil: now + 20_000, leaseMs: 20_000 })
      expect(record.holders[0]?.version).toBe(renewed.version)
      expect(record.holders[1]).toEqual(b.semaphore.holders[1])
      expect(record.fence).toBe(b.semaphore.fence)
      // Again at the same wall-clock time: the version still moves.
      const again = expectTag(yield* renewPermitsOf(store, renewed, 20_000), "Renewed").record
      expect(again.leaseUntil).toBe(renewed.leaseUntil)
      expect(again.version).not.toBe(renewed.version)
    }))

  test("renew is Lost for a wrong owner or fence, and after release, changing nothing", ({ name, store }) =>
    Effect.gen(function*() {
      const semaphoreName = name("renew-lost")
      const held = yield* takePermits(store, semaphoreName)
      const { record } = held
      const lostOnes = [
        { name: semaphoreName, owner: makeOwner(), fence: record.fence, leaseMs },
        { name: semaphoreName, owner: record.owner!, fence: record.fence + 1, leaseMs },
        { name: name("renew-none"), owner: record.owner!, fence: record.fence, leaseMs }
      ]
      for (const request of lostOnes) {
        expect(expectTag(yield* store.renewPermits(request), "Lost").current).toBeUndefined()
      }
      expect(yield* inspectSemaphoreSome(store, semaphoreName)).toEqual(held.semaphore)
      yield* expectNoSemaphore(store, name("renew-none"))
      expectTag(yield* releasePermitsOf(store, record), "Released")
      expect(expectTag(yield* renewPermitsOf(store, record), "Lost").current).toBeUndefined()
      expect((yield* inspectSemaphoreSome(store, semaphoreName)).holders).toEqual([])
    }))
}

const agreeing = (test: Test): void => {
  test("an acquire or a create with another limit is LimitMismatch and changes nothing", ({ name, store }) =>
    Effect.gen(function*() {
      const semaphoreName = name("limit")
      const held = yield* takePermits(store, semaphoreName)
      expect(yield* attemptPermits(store, semaphoreName, { limit: limit + 1 })).toEqual({
        _tag: "LimitMismatch",
        limit
      })
      expect(yield* attemptPermits(store, semaphoreName, { limit: 1, create: true })).toEqual({
        _tag: "LimitMismatch",
        limit
      })
      expect(yield* inspectSemaphoreSome(store, semaphoreName)).toEqual(held.semaphore)
    }))

  test("two creates: one creates the record, the other conflicts with it", ({ name, store }) =>
    Effect.gen(function*() {
      const semaphoreName = name("race")
      // Both saw no record; both ask to create it, at once.
      const [a, b] = yield* Effect.all([
        attemptPermits(store, semaphoreName, { create: true, holder: "a" }),
        attemptPermits(store, semaphoreName, { create: true, holder: "b" })
      ], { concurrency: 2 })
      const won = [a, b].filter((result) => result._tag === "Acquired")
      const lost = [a, b].filter((result) => result._tag === "Conflict")
      expect(won).toHaveLength(1)
      expect(lost).toHaveLength(1)
      const record = yield* inspectSemaphoreSome(store, semaphoreName)
      expect(lost[0]).toEqual({ _tag: "Conflict", current: record })
      expect(record.used).toBe(1)
      // The loser asks again, without create, and gets in.
      const again = expectTag(yield* attemptPermits(store, semaphoreName), "Acquired")
      expect(again.semaphore.used).toBe(2)
    }))
}

const apart = (test: Test): void => {
  test("a lock and a semaphore of the same name are different records", ({ name, prefix, store }) =>
    Effect.gen(function*() {
      const shared = name("shared")
      const lock = yield* acquireNew(store, shared)
      const permits = yield* takePermits(store, shared, { limit: 1 })
      expect(fields(yield* inspectSome(store, shared))).toEqual(fields(lock))
      expect(yield* inspectSemaphoreSome(store, shared)).toEqual(permits.semaphore)
      // Listing lists locks only.
      expect((yield* listAll(store, prefix)).map((record) => record.name)).toEqual([shared])
      expectTag(yield* releaseOf(store, lock), "Released")
      expect(Option.isSome(yield* store.forceRelease(shared))).toBe(false)
      expect(yield* inspectSemaphoreSome(store, shared)).toEqual(permits.semaphore)
      expectTag(yield* releasePermitsOf(store, permits.record), "Released")
      expect((yield* inspectSome(store, shared)).fence).toBe(lock.fence)
      // A semaphore alone is no lock, and a lock alone no semaphore.
      const only = yield* takePermits(store, name("only-semaphore"))
      expect(Option.isNone(yield* store.inspect(only.record.name))).toBe(true)
      const onlyLock = yield* acquireNew(store, name("only-lock"))
      yield* expectNoSemaphore(store, onlyLock.name)
      expect((yield* listAll(store, prefix)).map((record) => record.name).sort()).toEqual([onlyLock.name, shared])
    }))

  test("inspect of a semaphore never acquired is None; holders over their leases are still listed", ({ name, store }) =>
    Effect.gen(function*() {
      yield* expectNoSemaphore(store, name("none"))
      const held = yield* takePermits(store, name("kept"))
      yield* TestClock.adjust("1 hour")
      expect(yield* inspectSemaphoreSome(store, name("kept"))).toEqual(held.semaphore)
    }))
}
