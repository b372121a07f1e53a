/**
 * The conformance tests of `release`.
 *
 * @internal
 */
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { TestClock } from "../effectLine.js"
import { leaseMs, makeOwner, maxClockSkewMs, type Test } from "./fixture.js"
import { acquireNew, expectTag, fields, inspectSome, releaseOf } from "./helpers.js"

/**
 * Registers the `release` tests.
 *
 * @internal
 */
export const release = (test: Test): void => {
  describe("release", () => {
    test("clears the holder fields and keeps the record and its fence", ({ name, store }) =>
      Effect.gen(function*() {
        const held = yield* acquireNew(store, name("release"), { data: "gone" })
        yield* TestClock.adjust(1_000)
        expectTag(yield* releaseOf(store, held), "Released")
        const record = yield* inspectSome(store, name("release"))
        expect(record.name).toBe(name("release"))
        expect(record.owner).toBeUndefined()
        expect(record.holder).toBeUndefined()
        expect(record.acquiredAt).toBeUndefined()
        expect(record.data).toBeUndefined()
        expect(record.leaseUntil).toBe(0)
        expect(record.fence).toBe(held.fence)
      }))

    test("is NotHeld for a wrong owner or a wrong fence, leaving the holder in place", ({ expectCurrent, name, store }) =>
      Effect.gen(function*() {
        const held = yield* acquireNew(store, name("guarded"))
        const wrongOwner = yield* store.release({ name: held.name, owner: makeOwner(), fence: held.fence })
        expectCurrent(expectTag(wrongOwner, "NotHeld").current, held)
        const wrongOwnerNoFence = yield* store.release({ name: held.name, owner: makeOwner(), fence: undefined })
        expectCurrent(expectTag(wrongOwnerNoFence, "NotHeld").current, held)
        const wrongFence = yield* store.release({ name: held.name, owner: held.owner!, fence: held.fence + 1 })
        expectCurrent(expectTag(wrongFence, "NotHeld").current, held)
        expect(fields(yield* inspectSome(store, name("guarded")))).toEqual(fields(held))
      }))

    test("by owner alone (fence unknown) releases", ({ name, store }) =>
      Effect.gen(function*() {
        const held = yield* acquireNew(store, name("owner-only"))
        expectTag(yield* store.release({ name: held.name, owner: held.owner!, fence: undefined }), "Released")
        const record = yield* inspectSome(store, name("owner-only"))
        expect(record.owner).toBeUndefined()
        expect(record.fence).toBe(held.fence)
      }))

    test("twice: the second is NotHeld with no holder", ({ expectCurrent, name, store }) =>
      Effect.gen(function*() {
        const held = yield* acquireNew(store, name("twice"))
        expectTag(yield* releaseOf(store, held), "Released")
        expectCurrent(expectTag(yield* releaseOf(store, held), "NotHeld").current, undefined)
      }))

    test("by a previous owner after a takeover is NotHeld and keeps the new holder", ({ expectCurrent, name, store }) =>
      Effect.gen(function*() {
        const old = yield* acquireNew(store, name("previous"))
        yield* TestClock.adjust(leaseMs + maxClockSkewMs + 1)
        const next = yield* acquireNew(store, name("previous"), { holder: "holder-b" })
        expectCurrent(expectTag(yield* releaseOf(store, old), "NotHeld").current, next)
        const ownerOnly = yield* store.release({ name: old.name, owner: old.owner!, fence: undefined })
        expectCurrent(expectTag(ownerOnly, "NotHeld").current, next)
        expect(fields(yield* inspectSome(store, name("previous")))).toEqual(fields(next))
      }))

    test("of a name never acquired is NotHeld and creates no record", ({ expectCurrent, name, store }) =>
      Effect.gen(function*() {
        const result = yield* store.release({ name: name("ghost"), owner: makeOwner(), fence: undefined })
        expectCurrent(expectTag(result, "NotHeld").current, undefined)
        expect(Option.isNone(yield* store.inspect(name("ghost")))).toBe(true)
      }))
  })
}
