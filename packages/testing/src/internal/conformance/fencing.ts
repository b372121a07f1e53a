/**
 * The conformance tests of what every write does to a record's `version`, and what acquisitions do to its fence.
 *
 * @internal
 */
import { describe, expect } from "@effect/vitest"
import type * as LockRecord from "@leasehold/lock/LockRecord"
import * as Effect from "effect/Effect"
import { TestClock } from "../effectLine.js"
import { absolute, leaseMs, maxClockSkewMs, observed, type Test } from "./fixture.js"
import { acquireNew, expectFence, expectSome, expectTag, inspectSome, releaseOf, renewOf } from "./helpers.js"

/**
 * Registers the `version` tests.
 *
 * @internal
 */
export const version = (test: Test): void => {
  describe("version", () => {
    test("every acquire, renew, release and force release changes it, even with the clock standing still", ({ name, store }) =>
      Effect.gen(function*() {
        const lockName = name("version")
        const seen: Array<number> = []
        const expectNew = (record: LockRecord.LockRecord, write: string) => {
          expect(Number.isSafeInteger(record.version), `${write}: version ${record.version} is a safe integer`).toBe(
            true
          )
          expect(seen, `${write}: version ${record.version} was not seen before`).not.toContain(record.version)
          seen.push(record.version)
        }
        // TestClock does not move: every write happens at the same wall-clock time.
        const held = yield* acquireNew(store, lockName)
        expectNew(held, "acquire")
        for (let i = 0; i < 3; i++) {
          const renewed = expectTag(yield* renewOf(store, held), "Renewed").record
          expect(renewed.leaseUntil).toBe(held.leaseUntil)
          expectNew(renewed, `renew ${i + 1}`)
          expect((yield* inspectSome(store, lockName)).version).toBe(renewed.version)
        }
        expectTag(yield* releaseOf(store, held), "Released")
        expectNew(yield* inspectSome(store, lockName), "release")
        const again = yield* acquireNew(store, lockName, { takeover: observed() })
        expectNew(again, "acquire after release")
        const before = expectSome(yield* store.forceRelease(lockName), "the force-released holder")
        expect(before.version).toBe(again.version)
        expectNew(yield* inspectSome(store, lockName), "force release")
        const third = yield* acquireNew(store, lockName)
        expectNew(third, "acquire after force release")
        // A takeover is an acquire too.
        yield* TestClock.adjust(leaseMs + maxClockSkewMs + 1)
        expectNew(yield* acquireNew(store, lockName, { holder: "holder-b" }), "takeover")
      }))
  })
}

/**
 * Registers the `fence` tests.
 *
 * @internal
 */
export const fence = (test: Test): void => {
  describe("fence", () => {
    test("strictly increases across many acquire, release, takeover and force-release cycles", ({ name, store }) =>
      Effect.gen(function*() {
        const lockName = name("fence")
        let last = 0
        const check = (record: LockRecord.LockRecord) => {
          expectFence(record.fence)
          expect(record.fence).toBeGreaterThan(last)
          last = record.fence
        }
        for (let cycle = 0; cycle < 40; cycle++) {
          const held = yield* acquireNew(store, lockName, { takeover: cycle % 2 === 0 ? absolute() : observed() })
          check(held)
          yield* TestClock.adjust(1_000)
          const renewed = expectTag(yield* renewOf(store, held), "Renewed").record
          // Renewing never moves the fence.
          expect(renewed.fence).toBe(held.fence)
          switch (cycle % 4) {
            case 0: {
              expectTag(yield* releaseOf(store, held), "Released")
              break
            }
            case 1: {
              yield* TestClock.adjust(leaseMs + maxClockSkewMs + 1)
              const taken = yield* acquireNew(store, lockName, { holder: "holder-b" })
              check(taken)
              expectTag(yield* releaseOf(store, taken), "Released")
              break
            }
            case 2: {
              const stale = { owner: renewed.owner!, fence: renewed.fence, version: renewed.version }
              const taken = yield* acquireNew(store, lockName, { takeover: observed(stale) })
              check(taken)
              expectSome(yield* store.forceRelease(lockName), "the force-released holder")
              break
            }
            case 3: {
              expectSome(yield* store.forceRelease(lockName), "the force-released holder")
              break
            }
          }
          expect((yield* inspectSome(store, lockName)).fence).toBe(last)
        }
      }))
  })
}
