/**
 * The conformance tests of what every store refuses in a semaphore request, before writing anything: names, limits,
 * permits, owners, data, leases and expired entries that can not be.
 *
 * @internal
 */
import { describe, expect } from "@effect/vitest"
import type * as LockStore from "@leasehold/lock/LockStore"
import * as SemaphoreRecord from "@leasehold/lock/SemaphoreRecord"
import * as SemaphoreStore from "@leasehold/lock/SemaphoreStore"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { leaseMs, makeOwner, type Test, utf8Bytes } from "./fixture.js"
import { expectTag } from "./helpers.js"
import {
  attemptPermits,
  expectNoSemaphore,
  expectRefusal,
  inspectSemaphoreSome,
  releasePermitsOf,
  renewPermitsOf,
  takePermits
} from "./semaphoreHelpers.js"

/** Every semaphore operation on `name` fails with a non-retryable `LockStoreError`; `semaphoreNameProblem` says why. */
const expectNameRefused = (store: LockStore.LockStore, name: string) =>
  Effect.gen(function*() {
    const what = JSON.stringify(name)
    expect(store.semaphoreNameProblem(name), what).toBeTypeOf("string")
    yield* expectRefusal(attemptPermits(store, name, { create: true }), "tryAcquirePermits", what)
    yield* expectRefusal(
      store.renewPermits({ name, owner: makeOwner(), fence: 1, leaseMs }),
      "renewPermits",
      what
    )
    yield* expectRefusal(
      store.releasePermits({ name, owner: makeOwner(), fence: 1, permits: 1 }),
      "releasePermits",
      what
    )
    yield* expectRefusal(store.inspectSemaphore(name), "inspectSemaphore", what)
  })

/**
 * Registers the tests of refused semaphore requests.
 *
 * @internal
 */
export const semaphoreChecks = (test: Test): void => {
  describe("semaphore requests refused", () => {
    acquireRefusals(test)
    writeRefusals(test)
  })
}

/** Refused acquires: names and the request's own fields. */
const acquireRefusals = (test: Test): void => {
  test("a name of maxNameBytes - 1 UTF-8 bytes works; one byte more, empty or ill-formed is refused", ({ name, store }) =>
    Effect.gen(function*() {
      const max = SemaphoreStore.maxNameBytes(store)
      expect(max).toBe(store.maxNameBytes - 1)
      const base = name("long/")
      const room = max - utf8Bytes(base)
      const longest = base + "é".repeat(Math.floor(room / 2)) + "x".repeat(room % 2)
      expect(utf8Bytes(longest)).toBe(max)
      expect(store.semaphoreNameProblem(longest)).toBeUndefined()
      const held = yield* takePermits(store, longest)
      expect((yield* inspectSemaphoreSome(store, longest)).name).toBe(longest)
      expectTag(yield* renewPermitsOf(store, held.record), "Renewed")
      expectTag(yield* releasePermitsOf(store, held.record), "Released")

      yield* expectNameRefused(store, longest + "x")
      yield* expectNameRefused(store, "")
      yield* expectNameRefused(store, name("half\uD83D"))
    }))

  test("a bad limit, permit count, owner, holder, lease, data or takeover is refused, unwritten", ({ name, store }) =>
    Effect.gen(function*() {
      const semaphoreName = name("bad")
      const bad: ReadonlyArray<Partial<SemaphoreStore.AcquirePermitsRequest>> = [
        { limit: 0, permits: 1 },
        { limit: SemaphoreRecord.maxLimit + 1, permits: 1 },
        { limit: 2.5, permits: 1 },
        { limit: 3, permits: 0 },
        { limit: 3, permits: 4 },
        { limit: 3, permits: 1.5 },
        { owner: "" },
        { owner: "o".repeat(SemaphoreRecord.maxOwnerBytes + 1) },
        { holder: "h".repeat(1025) },
        { leaseMs: 0 },
        { leaseMs: 1.5 },
        { data: "d".repeat(SemaphoreRecord.maxDataBytes + 1) },
        { data: "\uD83D" },
        { takeover: { _tag: "Absolute", maxClockSkewMs: -1 } }
      ]
      for (const overrides of bad) {
        for (const create of [true, false]) {
          yield* expectRefusal(
            attemptPermits(store, semaphoreName, { ...overrides, create }),
            "tryAcquirePermits",
            JSON.stringify(overrides)
          )
        }
      }
      yield* expectNoSemaphore(store, semaphoreName)
      // At the limits it works.
      const edge = yield* takePermits(store, semaphoreName, {
        limit: SemaphoreRecord.maxLimit,
        permits: SemaphoreRecord.maxLimit,
        owner: "o".repeat(SemaphoreRecord.maxOwnerBytes),
        data: "d".repeat(SemaphoreRecord.maxDataBytes)
      })
      expect(edge.semaphore.used).toBe(SemaphoreRecord.maxLimit)
    }))
}

/** Refused removals of expired entries, renews and releases. */
const writeRefusals = (test: Test): void => {
  test("expired entries that can not be (the caller, twice the same, bad permits or versions) are refused", ({ name, store }) =>
    Effect.gen(function*() {
      const semaphoreName = name("bad-expired")
      const held = yield* takePermits(store, semaphoreName)
      const before = yield* inspectSemaphoreSome(store, semaphoreName)
      const other = held.record.owner!
      const owner = makeOwner()
      const bad: ReadonlyArray<ReadonlyArray<SemaphoreStore.ExpiredPermit>> = [
        [{ owner, permits: 1, version: 1 }],
        [{ owner: other, permits: 1, version: 1 }, { owner: other, permits: 1, version: 1 }],
        [{ owner: other, permits: 0, version: 1 }],
        [{ owner: other, permits: 4, version: 1 }],
        [{ owner: other, permits: 1, version: -1 }],
        [{ owner: "", permits: 1, version: 1 }],
        [
          { owner: other, permits: 2, version: 1 },
          { owner: makeOwner(), permits: 2, version: 1 }
        ]
      ]
      for (const expired of bad) {
        yield* expectRefusal(
          attemptPermits(store, semaphoreName, { owner, expired }),
          "tryAcquirePermits",
          JSON.stringify(expired)
        )
      }
      expect(yield* inspectSemaphoreSome(store, semaphoreName)).toEqual(before)
    }))

  test("renew and release with a bad owner, fence, lease or permit count are refused", ({ name, store }) =>
    Effect.gen(function*() {
      const semaphoreName = name("bad-hold")
      const held = yield* takePermits(store, semaphoreName)
      const { fence, owner } = held.record
      const renews = [
        { owner: "", fence, leaseMs },
        { owner: owner!, fence: 1.5, leaseMs },
        { owner: owner!, fence, leaseMs: 0 }
      ]
      for (const request of renews) {
        yield* expectRefusal(
          store.renewPermits({ name: semaphoreName, ...request }),
          "renewPermits",
          JSON.stringify(request)
        )
      }
      const releases = [
        { owner: "", fence, permits: 1 },
        { owner: owner!, fence: 1.5, permits: 1 },
        { owner: owner!, fence, permits: 0 },
        { owner: owner!, fence, permits: SemaphoreRecord.maxLimit + 1 }
      ]
      for (const request of releases) {
        yield* expectRefusal(
          store.releasePermits({ name: semaphoreName, ...request }),
          "releasePermits",
          JSON.stringify(request)
        )
      }
      expect(yield* inspectSemaphoreSome(store, semaphoreName)).toEqual(held.semaphore)
      expect(Option.isNone(yield* store.inspect(semaphoreName))).toBe(true)
    }))
}
