/**
 * The conformance tests of a semaphore's reservation: who may reserve (the longest waiter first, never a holder, only
 * with the record's limit), what a live reservation keeps out (an acquire whose permits would not fit beside the
 * reserver's) and lets in, that the reserver's own acquire clears it while the other writes keep it, and the mark a
 * read/write lock's record gets when it is created.
 *
 * @internal
 */
import { describe, expect } from "@effect/vitest"
import type * as LockStore from "@leasehold/lock/LockStore"
import * as SemaphoreRecord from "@leasehold/lock/SemaphoreRecord"
import type * as SemaphoreStore from "@leasehold/lock/SemaphoreStore"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { TestClock } from "../effectLine.js"
import { makeOwner, type Test } from "./fixture.js"
import { expectTag } from "./helpers.js"
import {
  attemptPermits,
  expectNoSemaphore,
  expectRefusal,
  inspectSemaphoreSome,
  limit,
  ownersOf,
  releasePermitsOf,
  renewPermitsOf,
  takePermits
} from "./semaphoreHelpers.js"

/** Short against the lease, so a test can let a reservation lapse while the holders still hold. */
const reserveMs = 2_000

/**
 * A reservation of `permits` (of the suite's limit) by `owner`, which began to wait `waitedMs` ago, keeping others
 * out `graceMs` from now.
 */
const reserveFor = (
  store: LockStore.LockStore,
  name: string,
  owner: string,
  overrides: Partial<Omit<SemaphoreStore.ReservePermitsRequest, "name" | "owner" | "waitingSince">> & {
    readonly waitedMs?: number
  } = {}
) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const { waitedMs = 0, ...rest } = overrides
    return store.reservePermits({
      name,
      owner,
      limit,
      permits: limit,
      reserveMs,
      graceMs: 0,
      waitingSince: now - waitedMs,
      ...rest
    })
  })

/** A record held by one holder of one permit, and a live reservation on it by a fresh waiter. */
const heldAndReserved = (
  store: LockStore.LockStore,
  name: string,
  overrides: Parameters<typeof reserveFor>[3] = {}
) =>
  Effect.gen(function*() {
    const held = yield* takePermits(store, name)
    const waiter = makeOwner()
    const reserved = expectTag(yield* reserveFor(store, name, waiter, overrides), "Reserved").semaphore
    return { held, waiter, reserved }
  })

/**
 * Registers the tests of semaphore reservations.
 *
 * @internal
 */
export const semaphoreReservations = (test: Test): void => {
  describe("semaphore reservations", () => {
    keepingOut(test)
    reserving(test)
    keeping(test)
  })
}

const keepingOut = (test: Test): void => {
  test("a reservation of every permit keeps others out from reservedFrom until it lapses, not before nor after", ({ name, store }) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const semaphoreName = name("all")
      const { held, reserved, waiter } = yield* heldAndReserved(store, semaphoreName, { graceMs: 50 })
      expect(reserved.reservation).toEqual({
        reservedBy: waiter,
        reservedPermits: limit,
        reservedUntil: now + reserveMs,
        reservedSince: now,
        reservedFrom: now + 50
      })
      expect({ ...reserved, reservation: undefined }).toEqual({ ...held.semaphore, reservation: undefined })
      expect(yield* inspectSemaphoreSome(store, semaphoreName)).toEqual(reserved)

      // Before its start the reservation is a place in line: others still get in, and it stays.
      const early = expectTag(yield* attemptPermits(store, semaphoreName), "Acquired")
      expect(early.semaphore.reservation).toEqual(reserved.reservation)

      // From its start, until it lapses (at reservedUntil itself it still holds), nobody else gets a permit.
      yield* TestClock.adjust(50)
      const kept = expectTag(yield* attemptPermits(store, semaphoreName), "Conflict")
      expect(kept.current).toEqual(early.semaphore)
      yield* TestClock.adjust(reserveMs - 50)
      expectTag(yield* attemptPermits(store, semaphoreName), "Conflict")
      expect(yield* inspectSemaphoreSome(store, semaphoreName)).toEqual(early.semaphore)

      // Lapsed: anyone gets in; only the reserver's acquire clears a reservation, so the lapsed one stays.
      yield* TestClock.adjust(1)
      const late = expectTag(yield* attemptPermits(store, semaphoreName), "Acquired")
      expect(ownersOf(late.semaphore)).toEqual([held.record.owner, early.record.owner, late.record.owner])
      expect(late.semaphore.reservation).toEqual(reserved.reservation)
    }))

  test("a reservation of one permit keeps out an acquire that would not fit beside it, and lets in one that would", ({ name, store }) =>
    Effect.gen(function*() {
      const semaphoreName = name("one")
      const held = yield* takePermits(store, semaphoreName)
      expectTag(yield* releasePermitsOf(store, held.record), "Released")
      const waiter = makeOwner()
      const reserved = expectTag(yield* reserveFor(store, semaphoreName, waiter, { permits: 1 }), "Reserved").semaphore
      expect(reserved.reservation?.reservedPermits).toBe(1)
      // Every permit is free, but the whole limit and the reserver's one do not fit together.
      const all = expectTag(yield* attemptPermits(store, semaphoreName, { permits: limit }), "Conflict")
      expect(all.current).toEqual(reserved)
      // The limit less the reserver's permit fits beside it, and so does one more, where the permits are free.
      const fits = expectTag(yield* attemptPermits(store, semaphoreName, { permits: limit - 1 }), "Acquired")
      expect(fits.semaphore.reservation).toEqual(reserved.reservation)
      const one = expectTag(yield* attemptPermits(store, semaphoreName, { permits: 1 }), "Acquired")
      expect(one.semaphore.used).toBe(limit)
      expect(one.semaphore.reservation).toEqual(reserved.reservation)
    }))

  test("the reserver's acquire with reserved gets in, even while it keeps others out, and clears the reservation", ({ name, store }) =>
    Effect.gen(function*() {
      const semaphoreName = name("reserver")
      const { held, waiter } = yield* heldAndReserved(store, semaphoreName, { permits: limit - 1 })
      // These permits are free, but do not fit beside the reserver's.
      expectTag(yield* attemptPermits(store, semaphoreName, { permits: limit - 1 }), "Conflict")
      const got = expectTag(
        yield* attemptPermits(store, semaphoreName, { owner: waiter, permits: limit - 1, reserved: true }),
        "Acquired"
      )
      expect(got.record.owner).toBe(waiter)
      expect(got.semaphore.reservation).toBeUndefined()
      expect(ownersOf(got.semaphore)).toEqual([held.record.owner, waiter])
      const read = yield* inspectSemaphoreSome(store, semaphoreName)
      expect(read.reservation).toBeUndefined()
      expect(read).toEqual(got.semaphore)
    }))

  test("the reserver's acquire without reserved is not kept out by its own reservation, and keeps it", ({ name, store }) =>
    Effect.gen(function*() {
      const semaphoreName = name("own")
      const { reserved, waiter } = yield* heldAndReserved(store, semaphoreName)
      const got = expectTag(yield* attemptPermits(store, semaphoreName, { owner: waiter }), "Acquired")
      expect(got.semaphore.reservation).toEqual(reserved.reservation)
    }))

  test("an acquire with reserved by a waiter whose reservation was taken over is a conflict and changes nothing", ({ name, store }) =>
    Effect.gen(function*() {
      const semaphoreName = name("overtaken")
      const { waiter } = yield* heldAndReserved(store, semaphoreName, { permits: 1 })
      const earlier = makeOwner()
      const taken = expectTag(
        yield* reserveFor(store, semaphoreName, earlier, { permits: 1, waitedMs: 1 }),
        "Reserved"
      ).semaphore
      const refused = expectTag(
        yield* attemptPermits(store, semaphoreName, { owner: waiter, permits: 1, reserved: true }),
        "Conflict"
      )
      expect(refused.current).toEqual(taken)
      expect(yield* inspectSemaphoreSome(store, semaphoreName)).toEqual(taken)
      // With no reservation at all, reserved is refused too.
      const free = name("unreserved")
      const only = yield* takePermits(store, free)
      expectTag(yield* attemptPermits(store, free, { reserved: true }), "Conflict")
      expect(yield* inspectSemaphoreSome(store, free)).toEqual(only.semaphore)
    }))
}

const reserving = (test: Test): void => {
  test("a waiter that began to wait earlier takes a live reservation over; a later one is NotReserved", ({ name, store }) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const semaphoreName = name("line")
      yield* heldAndReserved(store, semaphoreName, { waitedMs: 10 })
      const earliest = makeOwner()
      const taken = expectTag(
        yield* reserveFor(store, semaphoreName, earliest, { permits: 1, waitedMs: 20 }),
        "Reserved"
      ).semaphore
      expect(taken.reservation).toEqual({
        reservedBy: earliest,
        reservedPermits: 1,
        reservedUntil: now + reserveMs,
        reservedSince: now - 20,
        reservedFrom: now
      })
      expect(yield* inspectSemaphoreSome(store, semaphoreName)).toEqual(taken)
      // Began to wait later, or at the same time: the live reservation stays the earliest waiter's.
      for (const waitedMs of [5, 20]) {
        const later = expectTag(yield* reserveFor(store, semaphoreName, makeOwner(), { waitedMs }), "NotReserved")
        expect(later.current).toEqual(taken)
      }
      expect(yield* inspectSemaphoreSome(store, semaphoreName)).toEqual(taken)
      // The reserver may extend its own, whenever it says it began to wait.
      yield* TestClock.adjust(reserveMs - 1)
      const extended = expectTag(yield* reserveFor(store, semaphoreName, earliest, { permits: 1 }), "Reserved")
      expect(extended.semaphore.reservation?.reservedUntil).toBe(now + 2 * reserveMs - 1)
      // At reservedUntil it still holds; once it lapses, anyone may reserve.
      yield* TestClock.adjust(reserveMs)
      expectTag(yield* reserveFor(store, semaphoreName, makeOwner()), "NotReserved")
      yield* TestClock.adjust(1)
      const next = makeOwner()
      const after = expectTag(yield* reserveFor(store, semaphoreName, next), "Reserved").semaphore
      expect(after.reservation?.reservedBy).toBe(next)
    }))

  test("a reservation needs a record with the caller's limit, of which the caller holds nothing", ({ name, store }) =>
    Effect.gen(function*() {
      const missing = expectTag(yield* reserveFor(store, name("never"), makeOwner()), "NotReserved")
      expect(missing.current).toBeUndefined()
      yield* expectNoSemaphore(store, name("never"))

      const semaphoreName = name("held")
      const held = yield* takePermits(store, semaphoreName)
      const otherLimit = expectTag(
        yield* reserveFor(store, semaphoreName, makeOwner(), { limit: limit + 1, permits: 1 }),
        "NotReserved"
      )
      expect(otherLimit.current).toEqual(held.semaphore)
      const holder = expectTag(
        yield* reserveFor(store, semaphoreName, held.record.owner!, { permits: 1 }),
        "NotReserved"
      )
      expect(holder.current).toEqual(held.semaphore)
      expect(yield* inspectSemaphoreSome(store, semaphoreName)).toEqual(held.semaphore)
    }))

  test("a reserve with a bad name, owner, limit, permit count or time is refused and writes nothing", ({ name, store }) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const semaphoreName = name("bad")
      const held = yield* takePermits(store, semaphoreName)
      const good: SemaphoreStore.ReservePermitsRequest = {
        name: semaphoreName,
        owner: makeOwner(),
        limit,
        permits: 1,
        reserveMs,
        graceMs: 0,
        waitingSince: now
      }
      const bad: ReadonlyArray<Partial<SemaphoreStore.ReservePermitsRequest>> = [
        { owner: "" },
        { owner: "o".repeat(SemaphoreRecord.maxOwnerBytes + 1) },
        { owner: "\uD83D" },
        { limit: 0, permits: 1 },
        { limit: SemaphoreRecord.maxLimit + 1, permits: 1 },
        { permits: 0 },
        { permits: limit + 1 },
        { permits: 1.5 },
        { reserveMs: 0 },
        { graceMs: -1 },
        { waitingSince: Number.NaN }
      ]
      for (const overrides of bad) {
        yield* expectRefusal(
          store.reservePermits({ ...good, ...overrides }),
          "reservePermits",
          JSON.stringify(overrides)
        )
      }
      yield* expectRefusal(store.reservePermits({ ...good, name: "" }), "reservePermits", "an empty name")
      expect(yield* inspectSemaphoreSome(store, semaphoreName)).toEqual(held.semaphore)
    }))
}

const keeping = (test: Test): void => {
  test("renew and release keep the reservation", ({ name, store }) =>
    Effect.gen(function*() {
      const semaphoreName = name("kept")
      const { held, reserved } = yield* heldAndReserved(store, semaphoreName)
      expectTag(yield* renewPermitsOf(store, held.record), "Renewed")
      expect((yield* inspectSemaphoreSome(store, semaphoreName)).reservation).toEqual(reserved.reservation)
      expectTag(yield* releasePermitsOf(store, held.record), "Released")
      const after = yield* inspectSemaphoreSome(store, semaphoreName)
      expect(after.used).toBe(0)
      expect(after.reservation).toEqual(reserved.reservation)
    }))

  test("a create with readWrite marks the record; one without, or a later acquire with it, does not", ({ name, store }) =>
    Effect.gen(function*() {
      const marked = expectTag(
        yield* attemptPermits(store, name("rw"), { create: true, readWrite: true }),
        "Acquired"
      )
      expect(marked.semaphore.readWrite).toBe(true)
      expect((yield* inspectSemaphoreSome(store, name("rw"))).readWrite).toBe(true)
      const joined = expectTag(yield* attemptPermits(store, name("rw"), { readWrite: true }), "Acquired")
      expect(joined.semaphore.readWrite).toBe(true)

      const plain = expectTag(yield* attemptPermits(store, name("plain"), { create: true }), "Acquired")
      expect(plain.semaphore.readWrite).toBeUndefined()
      const joinedPlain = expectTag(yield* attemptPermits(store, name("plain"), { readWrite: true }), "Acquired")
      expect(joinedPlain.semaphore.readWrite).toBeUndefined()
      expect((yield* inspectSemaphoreSome(store, name("plain"))).readWrite).toBeUndefined()
    }))
}
