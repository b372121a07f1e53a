/**
 * The conformance tests of `reserve`: who may reserve (the longest waiter first), what a live reservation keeps out
 * and lets in, and that it leaves the holder and the version alone.
 *
 * @internal
 */
import { describe, expect } from "@effect/vitest"
import type * as LockRecord from "@leasehold/lock/LockRecord"
import type * as LockStore from "@leasehold/lock/LockStore"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { TestClock } from "../effectLine.js"
import { absolute, leaseMs, makeOwner, maxClockSkewMs, observed, type Test } from "./fixture.js"
import { acquireNew, attempt, expectTag, fields, inspectSome, releaseOf, renewOf } from "./helpers.js"

/** Short against the lease, so a test can let a reservation lapse while the holder still holds. */
const reserveMs = 2_000

/** A reservation by `owner`, which began to wait `waitedMs` ago, keeping others out `graceMs` from now. */
const reserveFor = (store: LockStore.LockStore, lockName: string, owner: string, waitedMs = 0, graceMs = 0) =>
  Effect.flatMap(
    Clock.currentTimeMillis,
    (now) => store.reserve({ name: lockName, owner, reserveMs, graceMs, waitingSince: now - waitedMs })
  )

/** The reservation fields of a record, in one list. */
const reservationOf = (
  record: LockRecord.LockRecord
) => [record.reservedBy, record.reservedUntil, record.reservedSince, record.reservedFrom]

/** A held lock and a live reservation on it by a fresh waiter. */
const heldAndReserved = (store: LockStore.LockStore, lockName: string) =>
  Effect.gen(function*() {
    const held = yield* acquireNew(store, lockName)
    const waiter = makeOwner()
    const reserved = expectTag(yield* reserveFor(store, lockName, waiter), "Reserved").record
    return { held, waiter, reserved }
  })

/** A conflict's record, when the store reports one, shows the reservation that caused it. */
const expectReservedBy = (current: LockRecord.LockRecord | undefined, waiter: string) => {
  if (current !== undefined) expect(current.reservedBy).toBe(waiter)
}

/**
 * Registers the `reserve` tests.
 *
 * @internal
 */
export const reserve = (test: Test): void => {
  describe("reserve", () => {
    reserving(test)
    admission(test)
  })
}

const reserving = (test: Test): void => {
  test("on a held lock records the waiter, until now + reserveMs, and changes neither holder nor version", ({ name, store }) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const { held, reserved, waiter } = yield* heldAndReserved(store, name("held"))
      expect(reserved.reservedBy).toBe(waiter)
      expect(reserved.reservedUntil).toBe(now + reserveMs)
      expect(reserved.reservedSince).toBe(now)
      expect(reserved.reservedFrom).toBe(now)
      expect({ ...fields(reserved), reservedBy: undefined, reservedUntil: 0, reservedSince: 0, reservedFrom: 0 })
        .toEqual(fields(held))
      expect(fields(yield* inspectSome(store, name("held")))).toEqual(fields(reserved))
    }))

  test("on a freed lock records the waiter too: the releaser is kept out, the reserver let in", ({ name, store }) =>
    Effect.gen(function*() {
      const held = yield* acquireNew(store, name("freed"))
      expectTag(yield* releaseOf(store, held), "Released")
      const waiter = makeOwner()
      const reserved = expectTag(yield* reserveFor(store, name("freed"), waiter), "Reserved").record
      expect([reserved.owner, reserved.reservedBy, reserved.fence]).toEqual([undefined, waiter, held.fence])
      const releaser = expectTag(yield* attempt(store, name("freed"), absolute(), { owner: held.owner! }), "Conflict")
      expectReservedBy(releaser.current, waiter)
      const got =
        expectTag(yield* attempt(store, name("freed"), absolute(), { owner: waiter, reserved: true }), "Acquired")
          .record
      expect(got.fence).toBe(held.fence + 1)
    }))

  test("keeps others out from now + graceMs (no later than it lapses): until then the reservation is a place in line", ({ name, store }) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const held = yield* acquireNew(store, name("turn"))
      const waiter = makeOwner()
      const reserved = expectTag(yield* reserveFor(store, name("turn"), waiter, 0, 50), "Reserved").record
      expect(reservationOf(reserved)).toEqual([waiter, now + reserveMs, now, now + 50])
      // Before its start, a freed lock goes to whoever asks, and the reservation stays for the reserver.
      expectTag(yield* releaseOf(store, held), "Released")
      const barged = expectTag(yield* attempt(store, name("turn"), absolute()), "Acquired").record
      expect(barged.fence).toBe(held.fence + 1)
      expect(reservationOf(barged)).toEqual(reservationOf(reserved))
      expectTag(yield* releaseOf(store, barged), "Released")
      // From its start, only the reserver gets in; its acquire clears the reservation.
      yield* TestClock.adjust(50)
      const other = expectTag(yield* attempt(store, name("turn"), absolute()), "Conflict")
      expectReservedBy(other.current, waiter)
      const got =
        expectTag(yield* attempt(store, name("turn"), absolute(), { owner: waiter, reserved: true }), "Acquired")
          .record
      expect(reservationOf(got)).toEqual([undefined, 0, 0, 0])
      // A start asked for after the reservation would lapse is its end.
      const late = makeOwner()
      const capped = expectTag(yield* reserveFor(store, name("turn"), late, 0, reserveMs * 2), "Reserved").record
      expect(capped.reservedFrom).toBe(capped.reservedUntil)
    }))

  test("on a name never acquired is NotReserved and writes nothing", ({ name, store }) =>
    Effect.gen(function*() {
      const result = expectTag(yield* reserveFor(store, name("never"), makeOwner()), "NotReserved")
      expect(result.current).toBeUndefined()
      expect(Option.isNone(yield* store.inspect(name("never")))).toBe(true)
    }))

  test("someone else's live reservation can not be overwritten by a later waiter; the reserver's own can be extended", ({ name, store }) =>
    Effect.gen(function*() {
      const { reserved, waiter } = yield* heldAndReserved(store, name("taken"))
      yield* TestClock.adjust(reserveMs - 1)
      // Began to wait when the reserver did (its clock has moved on since), and just now.
      for (const waitedMs of [reserveMs - 1, 0]) {
        const other = expectTag(yield* reserveFor(store, name("taken"), makeOwner(), waitedMs), "NotReserved")
        expectReservedBy(other.current, waiter)
      }
      expect(fields(yield* inspectSome(store, name("taken")))).toEqual(fields(reserved))
      const again = expectTag(yield* reserveFor(store, name("taken"), waiter), "Reserved").record
      expect(again.reservedUntil).toBe(reserved.reservedUntil + reserveMs - 1)
    }))

  test("a waiter that began to wait before the reserver takes its live reservation over", ({ name, store }) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const { held, waiter } = yield* heldAndReserved(store, name("earlier"))
      const earlier = makeOwner()
      const taken = expectTag(yield* reserveFor(store, name("earlier"), earlier, 1), "Reserved").record
      expect([taken.reservedBy, taken.reservedUntil, taken.reservedSince]).toEqual([earlier, now + reserveMs, now - 1])
      expect(fields(yield* inspectSome(store, name("earlier")))).toEqual(fields(taken))
      // The reservation is the earlier waiter's now: the one it replaced is kept out like anyone else.
      const replaced = expectTag(yield* reserveFor(store, name("earlier"), waiter), "NotReserved")
      expectReservedBy(replaced.current, earlier)
      expectTag(yield* releaseOf(store, held), "Released")
      expectTag(yield* attempt(store, name("earlier"), absolute(), { owner: waiter }), "Conflict")
      expectTag(yield* attempt(store, name("earlier"), absolute(), { owner: earlier }), "Acquired")
    }))

  test("a lapsed reservation can be taken by another waiter", ({ name, store }) =>
    Effect.gen(function*() {
      yield* heldAndReserved(store, name("lapsed"))
      yield* TestClock.adjust(reserveMs + 1)
      const next = makeOwner()
      expect(expectTag(yield* reserveFor(store, name("lapsed"), next), "Reserved").record.reservedBy).toBe(next)
    }))

  test("renew and release keep the reservation; the release answers the record it left", ({ name, store }) =>
    Effect.gen(function*() {
      const { held, reserved } = yield* heldAndReserved(store, name("kept"))
      const renewed = expectTag(yield* renewOf(store, held), "Renewed").record
      expect([renewed.reservedBy, renewed.reservedUntil]).toEqual([reserved.reservedBy, reserved.reservedUntil])
      const released = expectTag(yield* releaseOf(store, held), "Released")
      const after = yield* inspectSome(store, name("kept"))
      expect(after.owner).toBeUndefined()
      expect([after.reservedBy, after.reservedUntil]).toEqual([reserved.reservedBy, reserved.reservedUntil])
      // Optional in the contract; a store that answers it answers what it now has.
      if (released.record !== undefined) expect(fields(released.record)).toEqual(fields(after))
    }))
}

const admission = (test: Test): void => {
  test("a live reservation keeps others out of a free lock, and admits the reserver, clearing it", ({ name, store }) =>
    Effect.gen(function*() {
      const { held, waiter } = yield* heldAndReserved(store, name("next"))
      expectTag(yield* releaseOf(store, held), "Released")
      const other = expectTag(yield* attempt(store, name("next"), absolute()), "Conflict")
      expectReservedBy(other.current, waiter)
      const otherObserved = expectTag(yield* attempt(store, name("next"), observed()), "Conflict")
      expectReservedBy(otherObserved.current, waiter)
      const got =
        expectTag(yield* attempt(store, name("next"), absolute(), { owner: waiter, reserved: true }), "Acquired")
          .record
      expect(got.owner).toBe(waiter)
      expect(got.fence).toBe(held.fence + 1)
      expect(reservationOf(got)).toEqual([undefined, 0, 0, 0])
      expect(fields(yield* inspectSome(store, name("next")))).toEqual(fields(got))
    }))

  test("a live reservation keeps a takeover of an expired lease out until it lapses", ({ name, store }) =>
    Effect.gen(function*() {
      const held = yield* acquireNew(store, name("takeover"))
      yield* TestClock.adjust(leaseMs + maxClockSkewMs + 1 - reserveMs)
      const waiter = makeOwner()
      const reserved = expectTag(yield* reserveFor(store, name("takeover"), waiter), "Reserved").record
      yield* TestClock.adjust(reserveMs - 1)
      expectTag(yield* attempt(store, name("takeover"), absolute()), "Conflict")
      yield* TestClock.adjust(2)
      const got = expectTag(yield* attempt(store, name("takeover"), absolute()), "Acquired").record
      expect(got.fence).toBe(held.fence + 1)
      // Only the reserver's acquire clears a reservation; a lapsed one stays, and keeps nobody out.
      expect(reservationOf(got)).toEqual(reservationOf(reserved))
    }))

  test("once a reservation lapses anyone may acquire the free lock", ({ name, store }) =>
    Effect.gen(function*() {
      const { held } = yield* heldAndReserved(store, name("anyone"))
      expectTag(yield* releaseOf(store, held), "Released")
      yield* TestClock.adjust(reserveMs)
      // Lapsed means reservedUntil < now: at reservedUntil itself it still holds.
      expectTag(yield* attempt(store, name("anyone"), absolute()), "Conflict")
      yield* TestClock.adjust(1)
      const got = expectTag(yield* attempt(store, name("anyone"), observed()), "Acquired").record
      expect(got.reservedUntil).toBeLessThan(yield* Clock.currentTimeMillis)
      expectTag(yield* releaseOf(store, got), "Released")
      expectTag(yield* attempt(store, name("anyone"), absolute()), "Acquired")
    }))
}
