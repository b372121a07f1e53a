/**
 * The conformance tests of locks held under a lease session: what an acquire under one writes, that no lease of its
 * own ever lets the lock be taken over, that only a write naming the orphaned holder takes it, and how renews and
 * releases move a lock into and out of a session.
 *
 * @internal
 */
import { describe, expect } from "@effect/vitest"
import * as LeaseSession from "@leasehold/core/session/LeaseSession"
import type * as LockRecord from "@leasehold/lock/LockRecord"
import type * as LockStore from "@leasehold/lock/LockStore"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { TestClock } from "../effectLine.js"
import { absolute, leaseMs, makeOwner, observed, type Test } from "./fixture.js"
import { acquireNew, attempt, expectTag, fields, inspectSome, releaseOf, renewOf } from "./helpers.js"

/** A year: far past any lease and skew bound a test uses. */
const aYear = 365 * 24 * 3600 * 1000

const orphanOf = (record: LockRecord.LockRecord): LockStore.Orphan => ({ owner: record.owner!, fence: record.fence })

/**
 * Registers the lease-session tests.
 *
 * @internal
 */
export const sessions = (test: Test): void => {
  describe("locks under a lease session", () => {
    holding(test)
    orphans(test)
    moving(test)
  })
}

const holding = (test: Test): void => {
  test("an acquire under a session names it, with LeaseSession.heldUntil as its lease end and lease", ({ name, store }) =>
    Effect.gen(function*() {
      const session = makeOwner()
      const held = yield* acquireNew(store, name("under"), { session })
      expect([held.session, held.leaseUntil, held.leaseMs]).toEqual([
        session,
        LeaseSession.heldUntil,
        LeaseSession.heldUntil
      ])
      expect(LeaseSession.sessionOf(held)).toBe(session)
      const read = yield* inspectSome(store, name("under"))
      expect(fields(read)).toEqual(fields(held))
      expect(read.session).toBe(session)
    }))

  test("a lock under a session is never taken over by its lease, however late, with or without a skew bound", ({ expectCurrent, name, store }) =>
    Effect.gen(function*() {
      const held = yield* acquireNew(store, name("kept"), { session: makeOwner() })
      yield* TestClock.adjust(aYear)
      for (const takeover of [absolute(0), absolute(), observed()]) {
        const refused = expectTag(yield* attempt(store, name("kept"), takeover), "Conflict")
        expectCurrent(refused.current, held)
      }
    }))

  test("a lock on a lease of its own names no session, and its heartbeat leaves it so", ({ name, store }) =>
    Effect.gen(function*() {
      const held = yield* acquireNew(store, name("own"))
      expect(held.session).toBeUndefined()
      expect(LeaseSession.sessionOf(held)).toBeUndefined()
      const renewed = expectTag(yield* renewOf(store, held), "Renewed").record
      expect(renewed.session).toBeUndefined()
    }))

  test("a release, and a force release, take the lock out of its session", ({ name, store }) =>
    Effect.gen(function*() {
      const held = yield* acquireNew(store, name("released"), { session: makeOwner() })
      const released = expectTag(yield* releaseOf(store, held), "Released")
      if (released.record !== undefined) expect(released.record.session).toBeUndefined()
      expect((yield* inspectSome(store, name("released"))).session).toBeUndefined()

      const again = yield* acquireNew(store, name("forced"), { session: makeOwner() })
      expect(Option.isSome(yield* store.forceRelease(name("forced"), orphanOf(again)))).toBe(true)
      expect((yield* inspectSome(store, name("forced"))).session).toBeUndefined()
    }))
}

const orphans = (test: Test): void => {
  test("an orphan takeover takes exactly the holder it names, and the new holder is on a lease of its own", ({ expectCurrent, name, store }) =>
    Effect.gen(function*() {
      const held = yield* acquireNew(store, name("orphan"), { session: makeOwner() })
      const wrongFence = expectTag(
        yield* attempt(store, name("orphan"), absolute(), { orphan: { owner: held.owner!, fence: held.fence + 1 } }),
        "Conflict"
      )
      expectCurrent(wrongFence.current, held)
      const wrongOwner = expectTag(
        yield* attempt(store, name("orphan"), absolute(), { orphan: { owner: makeOwner(), fence: held.fence } }),
        "Conflict"
      )
      expectCurrent(wrongOwner.current, held)

      const now = yield* Clock.currentTimeMillis
      const taken = yield* acquireNew(store, name("orphan"), { orphan: orphanOf(held), takeover: observed() })
      expect(taken.fence).toBeGreaterThan(held.fence)
      expect([taken.session, taken.leaseUntil, taken.leaseMs]).toEqual([undefined, now + leaseMs, leaseMs])
    }))

  test("an orphan takeover takes a free lock, and no lock on a lease of its own, even an expired one", ({ expectCurrent, name, store }) =>
    Effect.gen(function*() {
      const own = yield* acquireNew(store, name("own"))
      yield* TestClock.adjust(aYear)
      const refused = expectTag(
        yield* attempt(store, name("own"), absolute(), { orphan: orphanOf(own) }),
        "Conflict"
      )
      expectCurrent(refused.current, own)

      const freed = yield* acquireNew(store, name("free"), { session: makeOwner() })
      expectTag(yield* releaseOf(store, freed), "Released")
      const taken = yield* acquireNew(store, name("free"), { orphan: orphanOf(freed) })
      expect(taken.fence).toBeGreaterThan(freed.fence)
    }))

  test("an orphan takeover into a session of the taker's own names that session", ({ name, store }) =>
    Effect.gen(function*() {
      const held = yield* acquireNew(store, name("into"), { session: makeOwner() })
      const session = makeOwner()
      const taken = yield* acquireNew(store, name("into"), { orphan: orphanOf(held), session })
      expect(LeaseSession.sessionOf(taken)).toBe(session)
    }))

  test("an orphan takeover is kept out by someone else's live reservation, as any acquire is", ({ name, store }) =>
    Effect.gen(function*() {
      const held = yield* acquireNew(store, name("reserved"), { session: makeOwner() })
      const now = yield* Clock.currentTimeMillis
      const waiter = makeOwner()
      expectTag(
        yield* store.reserve({
          name: name("reserved"),
          owner: waiter,
          reserveMs: 2_000,
          graceMs: 0,
          waitingSince: now
        }),
        "Reserved"
      )
      expectTag(yield* attempt(store, name("reserved"), absolute(), { orphan: orphanOf(held) }), "Conflict")
      const reserver = yield* acquireNew(store, name("reserved"), {
        owner: waiter,
        orphan: orphanOf(held),
        reserved: true
      })
      expect(reserver.reservedBy).toBeUndefined()
    }))
}

const moving = (test: Test): void => {
  test("a renew under the session keeps the lease fields and may update the data", ({ name, store }) =>
    Effect.gen(function*() {
      const session = makeOwner()
      const held = yield* acquireNew(store, name("data"), { session })
      yield* TestClock.adjust(1_000)
      const renewed = expectTag(
        yield* store.renew({
          name: held.name,
          owner: held.owner!,
          fence: held.fence,
          leaseMs,
          sequence: 1,
          session,
          setData: { data: "payload" }
        }),
        "Renewed"
      ).record
      expect([renewed.session, renewed.leaseUntil, renewed.leaseMs, renewed.data]).toEqual([
        session,
        LeaseSession.heldUntil,
        LeaseSession.heldUntil,
        "payload"
      ])
      expect(renewed.version).toBeGreaterThan(held.version)
    }))

  test("a renew that moves the owner takes the lock out of its session, or into the one it names", ({ name, store }) =>
    Effect.gen(function*() {
      const held = yield* acquireNew(store, name("moved"), { session: makeOwner() })
      const now = yield* Clock.currentTimeMillis
      const resumer = makeOwner()
      const own = expectTag(
        yield* store.renew({ name: held.name, owner: held.owner!, fence: held.fence, leaseMs, newOwner: resumer }),
        "Renewed"
      ).record
      expect([own.owner, own.session, own.leaseUntil, own.leaseMs]).toEqual([
        resumer,
        undefined,
        now + leaseMs,
        leaseMs
      ])

      const session = makeOwner()
      const next = makeOwner()
      const under = expectTag(
        yield* store.renew({ name: held.name, owner: resumer, fence: held.fence, leaseMs, newOwner: next, session }),
        "Renewed"
      ).record
      expect([under.owner, LeaseSession.sessionOf(under)]).toEqual([next, session])
    }))
}
