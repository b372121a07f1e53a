/**
 * The conformance tests of writes delivered late: a renew the network delivers after a newer renew of the same lease
 * (its sender gave up on it) changes nothing, and a force release names the holder it is for.
 *
 * A late write is built as its sender built it: the clock is set back to its send time for the call, as a DynamoDB
 * request carries the time it was built at.
 *
 * @internal
 */
import { describe, expect } from "@effect/vitest"
import type * as LockStore from "@leasehold/lock/LockStore"
import type * as SemaphoreStore from "@leasehold/lock/SemaphoreStore"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as EffectLine from "../effectLine.js"
import { TestClock } from "../effectLine.js"
import * as HeldRequest from "../faultyStore/heldRequest.js"
import { leaseMs, maxClockSkewMs, type Test } from "./fixture.js"
import { acquireNew, expectTag, inspectSome } from "./helpers.js"
import { inspectSemaphoreSome, takePermits } from "./semaphoreHelpers.js"

/** Runs `write` as if sent `ago` ms before now: delivered late, with the time it was built at. */
const sentAgo = <A, E>(ago: number, write: Effect.Effect<A, E>) =>
  Effect.clockWith((clock) =>
    write.pipe(EffectLine.withClock(HeldRequest.standingAt(clock, EffectLine.currentTimeMillisUnsafe(clock) - ago)))
  )

/** A lock's renews out of order, and the sequence they are ordered by. */
const lockRenews = (test: Test): void => {
  test("a renew older than the last applied one changes nothing and answers Renewed", ({ name, store }) =>
    Effect.gen(function*() {
      const held = yield* acquireNew(store, name("late-renew"), { data: "first" })
      const renew = (sequence: number, setData?: { readonly data: string }): LockStore.RenewRequest => ({
        name: held.name,
        owner: held.owner!,
        fence: held.fence,
        leaseMs,
        sequence,
        setData
      })
      yield* TestClock.adjust(1_000)
      const newer = expectTag(yield* store.renew(renew(2)), "Renewed").record
      expect(newer.sequence).toBe(2)
      // Sequence 1 was sent a second before the newer write and given up on; it lands now, with data.
      const late = yield* sentAgo(1_000, store.renew(renew(1, { data: "late" })))
      expect(expectTag(late, "Renewed").record.leaseUntil).toBe(newer.leaseUntil)
      const after = yield* inspectSome(store, held.name)
      expect(after.leaseUntil).toBe(newer.leaseUntil)
      expect(after.version).toBe(newer.version)
      expect(after.data).toBe("first")
      // A retried request whose first attempt applied answers Renewed and changes nothing.
      const again = expectTag(yield* store.renew(renew(2)), "Renewed").record
      expect(again.leaseUntil).toBe(newer.leaseUntil)
      expect((yield* inspectSome(store, held.name)).version).toBe(newer.version)
      // The next one applies.
      yield* TestClock.adjust(1_000)
      expect(expectTag(yield* store.renew(renew(3)), "Renewed").record.leaseUntil).toBe(newer.leaseUntil + 1_000)
    }))

  test("a new acquisition, and a resume, start their sequences again", ({ name, store }) =>
    Effect.gen(function*() {
      const first = yield* acquireNew(store, name("sequence-restart"))
      const renewed = yield* store.renew({
        name: first.name,
        owner: first.owner!,
        fence: first.fence,
        leaseMs,
        sequence: 9
      })
      expect(expectTag(renewed, "Renewed").record.sequence).toBe(9)
      const resumedOwner = `${first.owner!}-resumed`
      const resumed = yield* store.renew({
        name: first.name,
        owner: first.owner!,
        fence: first.fence,
        leaseMs,
        newOwner: resumedOwner
      })
      expect(expectTag(resumed, "Renewed").record.sequence).toBe(0)
      const next = { name: first.name, owner: resumedOwner, fence: first.fence, leaseMs, sequence: 1 }
      expect(expectTag(yield* store.renew(next), "Renewed").record.sequence).toBe(1)
      // The old owner's renews, however late, find another owner.
      const old = yield* store.renew({
        name: first.name,
        owner: first.owner!,
        fence: first.fence,
        leaseMs,
        sequence: 10
      })
      expect(old._tag).toBe("Lost")
      yield* store.release({ name: first.name, owner: resumedOwner, fence: first.fence })
      const second = yield* acquireNew(store, name("sequence-restart"))
      expect(second.sequence).toBe(0)
      const renewSecond = { name: second.name, owner: second.owner!, fence: second.fence, leaseMs, sequence: 1 }
      expect(expectTag(yield* store.renew(renewSecond), "Renewed").record.sequence).toBe(1)
    }))

  test("a renew sequence that is not a whole number of at least 1 is refused, unwritten", ({ name, store }) =>
    Effect.gen(function*() {
      const held = yield* acquireNew(store, name("bad-sequence"))
      for (const sequence of [0, 1.5, -1, Number.NaN]) {
        const error = yield* Effect.flip(
          store.renew({ name: held.name, owner: held.owner!, fence: held.fence, leaseMs, sequence })
        )
        expect(error._tag).toBe("LockStoreError")
        expect(error.retryable).toBe(false)
        expect(error.mayHaveApplied).toBe(false)
      }
      expect((yield* inspectSome(store, held.name)).version).toBe(held.version)
    }))
}

/** A semaphore holder's renews out of order, and a force release aimed at one holder. */
const holderWrites = (test: Test): void => {
  test("a semaphore holder's renew older than its last applied one changes nothing", ({ name, store }) =>
    Effect.gen(function*() {
      const held = (yield* takePermits(store, name("late-permits"))).record
      const renew = (sequence: number): SemaphoreStore.RenewPermitsRequest => ({
        name: held.name,
        owner: held.owner!,
        fence: held.fence,
        leaseMs,
        sequence
      })
      yield* TestClock.adjust(1_000)
      const newer = expectTag(yield* store.renewPermits(renew(2)), "Renewed").record
      expect(newer.sequence).toBe(2)
      const late = yield* sentAgo(1_000, store.renewPermits(renew(1)))
      expect(expectTag(late, "Renewed").record.leaseUntil).toBe(newer.leaseUntil)
      const again = expectTag(yield* store.renewPermits(renew(2)), "Renewed").record
      expect(again.leaseUntil).toBe(newer.leaseUntil)
      const holder = (yield* inspectSemaphoreSome(store, held.name)).holders.find((h) => h.owner === held.owner)
      expect(holder?.leaseUntil).toBe(newer.leaseUntil)
      expect(holder?.version).toBe(newer.version)
    }))

  test("a force release for a holder frees only that holder's lease", ({ name, store }) =>
    Effect.gen(function*() {
      const first = yield* acquireNew(store, name("force-holder"))
      yield* TestClock.adjust(leaseMs + maxClockSkewMs + 1)
      const second = yield* acquireNew(store, name("force-holder"), { holder: "holder-b" })
      // An operator saw the first holder; the force release lands after the second acquired.
      const stale = yield* store.forceRelease(first.name, { owner: first.owner!, fence: first.fence })
      expect(Option.isNone(stale)).toBe(true)
      expect((yield* inspectSome(store, first.name)).owner).toBe(second.owner)
      const removed = yield* store.forceRelease(first.name, { owner: second.owner!, fence: second.fence })
      expect(Option.map(removed, (record) => record.owner)).toEqual(Option.some(second.owner))
      expect((yield* inspectSome(store, first.name)).owner).toBeUndefined()
    }))
}

/**
 * Registers the late-write tests.
 *
 * @internal
 */
export const lateWrites = (test: Test): void => {
  describe("writes delivered late", () => {
    lockRenews(test)
    holderWrites(test)
  })
}
