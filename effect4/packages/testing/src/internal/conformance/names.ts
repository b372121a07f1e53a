/**
 * The conformance tests of lock names: the longest, one byte too long, empty, ill-formed.
 *
 * @internal
 */
import { describe, expect } from "@effect/vitest"
import type * as LockError from "@leasehold/lock/LockError"
import type * as LockStore from "@leasehold/lock/LockStore"
import * as Effect from "effect/Effect"
import { leaseMs, maxClockSkewMs, type Test, utf8Bytes } from "./fixture.js"
import { acquireNew, expectTag, inspectSome, listAll, releaseOf, renewOf } from "./helpers.js"

/**
 * Every operation on `lockName` fails with a non-retryable `LockStoreError`, and nothing is written; the store's own
 * judge (`nameProblem`, which `Lock` asks first) says why.
 */
const expectRefused = (store: LockStore.LockStore, lockName: string) =>
  Effect.gen(function*() {
    expect(store.nameProblem(lockName), JSON.stringify(lockName)).toBeTypeOf("string")
    const attempts = [
      store.tryAcquire({
        name: lockName,
        owner: "o",
        holder: "h",
        leaseMs,
        data: undefined,
        takeover: { _tag: "Absolute", maxClockSkewMs }
      }),
      store.renew({ name: lockName, owner: "o", fence: 1, leaseMs }),
      store.release({ name: lockName, owner: "o", fence: undefined }),
      store.inspect(lockName),
      store.forceRelease(lockName)
    ] as const
    for (const attempt of attempts) {
      const error = yield* Effect.flip(attempt as Effect.Effect<unknown, LockError.LockStoreError>)
      expect(error._tag, JSON.stringify(lockName)).toBe("LockStoreError")
      expect(error.retryable).toBe(false)
    }
  })

/**
 * Registers the `names` tests.
 *
 * @internal
 */
export const names = (test: Test): void => {
  describe("names", () => {
    test("a name of exactly maxNameBytes UTF-8 bytes works (multi-byte characters count as bytes)", ({ name, prefix, store }) =>
      Effect.gen(function*() {
        const base = name("long/")
        const room = store.maxNameBytes - utf8Bytes(base)
        expect(room, "maxNameBytes leaves room after the test prefix").toBeGreaterThan(8)
        // Four-byte characters, then one character of the remaining width.
        const tail = ["", "a", "é", "日"][room % 4]!
        const lockName = base + "🔒".repeat(Math.floor(room / 4)) + tail
        expect(utf8Bytes(lockName)).toBe(store.maxNameBytes)
        expect(lockName.length).toBeLessThan(store.maxNameBytes)
        expect(store.nameProblem(lockName)).toBeUndefined()

        const held = yield* acquireNew(store, lockName)
        expect(held.name).toBe(lockName)
        expect((yield* inspectSome(store, lockName)).name).toBe(lockName)
        expectTag(yield* renewOf(store, held), "Renewed")
        expect((yield* listAll(store, prefix)).map((record) => record.name)).toEqual([lockName])
        expectTag(yield* releaseOf(store, held), "Released")
        expect((yield* acquireNew(store, lockName)).fence).toBeGreaterThan(held.fence)
      }))

    test("a name one byte over maxNameBytes fails every operation with a non-retryable error", ({ name, store }) =>
      Effect.gen(function*() {
        const base = name("over/")
        const lockName = base + "x".repeat(store.maxNameBytes - utf8Bytes(base) + 1)
        expect(utf8Bytes(lockName)).toBe(store.maxNameBytes + 1)
        yield* expectRefused(store, lockName)
      }))

    test("an empty name fails every operation with a non-retryable error", ({ store }) => expectRefused(store, ""))

    // UTF-8 (DynamoDB's encoding) has no encoding for half a surrogate pair: such names would become one item.
    test("a name with a lone surrogate fails every operation with a non-retryable error", ({ name, prefix, store }) =>
      Effect.gen(function*() {
        for (const lockName of [name("orders/ab\uD83D"), name("orders/ab\uDC00"), name("\uDE00\uD83D")]) {
          yield* expectRefused(store, lockName)
        }
        // The well-formed name they are halves of is a lock like any other, and nothing else was written.
        const whole = yield* acquireNew(store, name("orders/ab\uD83D\uDE00"))
        expect((yield* listAll(store, prefix)).map((record) => record.name)).toEqual([whole.name])
        expect((yield* listAll(store, name("orders/ab\uD83D"))).map((record) => record.name)).toEqual([whole.name])
      }))
  })
}
