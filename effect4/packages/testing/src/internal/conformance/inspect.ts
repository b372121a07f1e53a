/**
 * The conformance tests of `inspect`.
 *
 * @internal
 */
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type Test } from "./fixture.js"
import { acquireNew } from "./helpers.js"

/**
 * Registers the `inspect` tests.
 *
 * @internal
 */
export const inspect = (test: Test): void => {
  describe("inspect", () => {
    test("of a name never acquired is None", ({ name, store }) =>
      Effect.gen(function*() {
        expect(Option.isNone(yield* store.inspect(name("unknown")))).toBe(true)
        // A conflict-free acquire of a neighbour does not make this one appear.
        yield* acquireNew(store, name("unknown/child"))
        expect(Option.isNone(yield* store.inspect(name("unknown")))).toBe(true)
      }))
  })
}
