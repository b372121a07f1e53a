/**
 * The conformance tests of `renew`.
 *
 * @internal
 */
import { describe, expect } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { TestClock } from "../effectLine.js"
import { leaseMs, makeOwner, maxClockSkewMs, type Test } from "./fixture.js"
import { acquireNew, expectTag, fields, inspectSome, releaseOf, renewOf } from "./helpers.js"

/**
 * Registers the `renew` tests.
 *
 * @internal
 */
export const renew = (test: Test): void => {
  describe("renew", () => {
    test("sets leaseUntil to now + lease and keeps owner, fence, acquiredAt and data", ({ name, store }) =>
      Effect.gen(function*() {
        const held = yield* acquireNew(store, name("renew"), { data: "kept" })
        yield* TestClock.adjust(leaseMs / 3)
        const now = yield* Clock.currentTimeMillis
        const renewed = expectTag(yield* renewOf(store, held), "Renewed").record
        expect(fields(renewed)).toEqual({ ...fields(held), leaseUntil: now + leaseMs, version: renewed.version })
        expect(renewed.version).not.toBe(held.version)
        expect(fields(yield* inspectSome(store, name("renew")))).toEqual(fields(renewed))
      }))

    test("is idempotent: renewing twice in a row succeeds both times", ({ name, store }) =>
      Effect.gen(function*() {
        const held = yield* acquireNew(store, name("idempotent"))
        yield* TestClock.adjust(1_000)
        const first = expectTag(yield* renewOf(store, held), "Renewed").record
        const second = expectTag(yield* renewOf(store, held), "Renewed").record
        // The same record but for the version, which every write changes.
        expect(fields(second)).toEqual({ ...fields(first), version: second.version })
        expect(second.version).not.toBe(first.version)
        yield* TestClock.adjust(1_000)
        const third = expectTag(yield* renewOf(store, held), "Renewed").record
        expect(third.leaseUntil).toBe(first.leaseUntil + 1_000)
        expect(third.fence).toBe(held.fence)
      }))

    test("succeeds while owner and fence match, even after the lease ran out", ({ name, store }) =>
      Effect.gen(function*() {
        const held = yield* acquireNew(store, name("late"))
        yield* TestClock.adjust(leaseMs + maxClockSkewMs + 1)
        const now = yield* Clock.currentTimeMillis
        const renewed = expectTag(yield* renewOf(store, held), "Renewed").record
        expect(renewed.leaseUntil).toBe(now + leaseMs)
      }))

    test("fails with Lost and reports the new holder after a takeover", ({ expectLostTo, name, store }) =>
      Effect.gen(function*() {
        const held = yield* acquireNew(store, name("stolen"))
        yield* TestClock.adjust(leaseMs + maxClockSkewMs + 1)
        const thief = yield* acquireNew(store, name("stolen"), { holder: "holder-b" })
        const lost = expectTag(yield* renewOf(store, held), "Lost")
        expectLostTo(lost.current, thief)
        expect(fields(yield* inspectSome(store, name("stolen")))).toEqual(fields(thief))
      }))

    test("fails with Lost and no holder after release; a late renew cannot resurrect the lock", ({ expectLostTo, name, store }) =>
      Effect.gen(function*() {
        const held = yield* acquireNew(store, name("released"))
        expectTag(yield* releaseOf(store, held), "Released")
        const lost = expectTag(yield* renewOf(store, held), "Lost")
        expectLostTo(lost.current, undefined)
        const record = yield* inspectSome(store, name("released"))
        expect(record.owner).toBeUndefined()
        expect(record.fence).toBe(held.fence)
        // Still free: anyone can take it at once.
        yield* acquireNew(store, name("released"), { holder: "holder-b" })
      }))

    test("fails with Lost for a wrong fence or a wrong owner, leaving the holder in place", ({ expectLostTo, name, store }) =>
      Effect.gen(function*() {
        const held = yield* acquireNew(store, name("wrong"))
        yield* TestClock.adjust(1_000)
        const wrongFence = yield* store.renew({
          name: held.name,
          owner: held.owner!,
          fence: held.fence + 1,
          leaseMs
        })
        expectLostTo(expectTag(wrongFence, "Lost").current, held)
        const wrongOwner = yield* store.renew({ name: held.name, owner: makeOwner(), fence: held.fence, leaseMs })
        expectLostTo(expectTag(wrongOwner, "Lost").current, held)
        expect(fields(yield* inspectSome(store, name("wrong")))).toEqual(fields(held))
      }))

    test("with newOwner moves the lease to it, keeping the fence; the old owner is refused, a second move too", ({ expectLostTo, name, store }) =>
      Effect.gen(function*() {
        const held = yield* acquireNew(store, name("moved"))
        yield* TestClock.adjust(1_000)
        const now = yield* Clock.currentTimeMillis
        const next = makeOwner()
        const request = { name: held.name, owner: held.owner!, fence: held.fence, leaseMs }
        const moved = expectTag(yield* store.renew({ ...request, newOwner: next }), "Renewed").record
        expect([moved.owner, moved.fence, moved.leaseUntil]).toEqual([next, held.fence, now + leaseMs])
        expect(moved.version).not.toBe(held.version)
        expect([moved.holder, moved.acquiredAt, moved.data]).toEqual([held.holder, held.acquiredAt, held.data])
        // The old owner, and a second move from it, find the new owner: a hand-off resumes once.
        expectLostTo(expectTag(yield* renewOf(store, held), "Lost").current, moved)
        expectLostTo(expectTag(yield* store.renew({ ...request, newOwner: makeOwner() }), "Lost").current, moved)
        expectTag(yield* releaseOf(store, held), "NotHeld")
        expect(fields(yield* inspectSome(store, name("moved")))).toEqual(fields(moved))
        // The new owner renews and releases as any holder.
        const renewed = expectTag(yield* renewOf(store, moved), "Renewed").record
        expect(renewed.owner).toBe(next)
        expectTag(yield* releaseOf(store, renewed), "Released")
      }))

    test("of a name never acquired is Lost and creates no record", ({ expectLostTo, name, store }) =>
      Effect.gen(function*() {
        const lost = yield* store.renew({ name: name("ghost"), owner: makeOwner(), fence: 1, leaseMs })
        expectLostTo(expectTag(lost, "Lost").current, undefined)
        expect(Option.isNone(yield* store.inspect(name("ghost")))).toBe(true)
      }))
  })
}
