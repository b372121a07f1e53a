/**
 * The conformance tests of `forceRelease`, the operator's way to clear a holder.
 *
 * @internal
 */
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type Test } from "./fixture.js"
import { acquireNew, expectSome, expectTag, fields, inspectSome, releaseOf, renewOf } from "./helpers.js"

/**
 * Registers the `forceRelease` tests.
 *
 * @internal
 */
export const forceRelease = (test: Test): void => {
  describe("forceRelease", () => {
    test("returns the holder it removed and frees the lock, keeping the fence", ({ expectLostTo, name, store }) =>
      Effect.gen(function*() {
        const held = yield* acquireNew(store, name("force"), { data: "x" })
        const removed = expectSome(yield* store.forceRelease(name("force")), "the removed holder")
        expect(fields(removed)).toEqual(fields(held))
        const record = yield* inspectSome(store, name("force"))
        expect(record.owner).toBeUndefined()
        expect(record.data).toBeUndefined()
        expect(record.fence).toBe(held.fence)
        // The old holder learns it lost the lock at its next heartbeat.
        expectLostTo(expectTag(yield* renewOf(store, held), "Lost").current, undefined)
        const next = yield* acquireNew(store, name("force"), { holder: "holder-b" })
        expect(next.fence).toBeGreaterThan(held.fence)
      }))

    test("returns None for a free lock and for a name never acquired, creating nothing", ({ name, store }) =>
      Effect.gen(function*() {
        const held = yield* acquireNew(store, name("free"))
        expectTag(yield* releaseOf(store, held), "Released")
        expect(Option.isNone(yield* store.forceRelease(name("free")))).toBe(true)
        expect((yield* inspectSome(store, name("free"))).fence).toBe(held.fence)
        expect(Option.isNone(yield* store.forceRelease(name("ghost")))).toBe(true)
        expect(Option.isNone(yield* store.inspect(name("ghost")))).toBe(true)
      }))
  })
}
