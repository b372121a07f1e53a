/**
 * The conformance tests of a lock's `data` (and `holder`): round trips, size limits, ill-formed text.
 *
 * @internal
 */
import { describe, expect } from "@effect/vitest"
import * as LockRecord from "@leasehold/lock/LockRecord"
import type * as LockStore from "@leasehold/lock/LockStore"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import { absolute, leaseMs, maxClockSkewMs, type Test, utf8Bytes } from "./fixture.js"
import { acquireNew, attempt, expectTag, inspectSome, listAll, releaseOf, renewOf } from "./helpers.js"

/** An attempt with `overrides` fails with a non-retryable `LockStoreError`. */
const expectPayloadRefused = (
  store: LockStore.LockStore,
  lockName: string,
  overrides: Partial<Omit<LockStore.AcquireRequest, "name" | "takeover">>
) =>
  Effect.map(Effect.either(attempt(store, lockName, absolute(), overrides)), (outcome) =>
    // Compared in brief: a failing comparison of the records themselves would print megabytes.
    expect(Either.isLeft(outcome) ? [outcome.left._tag, outcome.left.retryable] : outcome.right._tag)
      .toEqual(["LockStoreError", false]))

/**
 * Registers the `data` tests.
 *
 * @internal
 */
export const data = (test: Test): void => {
  describe("data", () => {
    test("round-trips unicode data through acquire, conflict, renew, inspect and list", ({ expectCurrent, name, prefix, store }) =>
      Effect.gen(function*() {
        const data = JSON.stringify({ job: "nightly-report", by: "Zoë 🔒 日本語", quote: "\"'\\" })
        const held = yield* acquireNew(store, name("data"), { data })
        expect(held.data).toBe(data)
        const conflict = expectTag(yield* attempt(store, name("data"), absolute()), "Conflict")
        expectCurrent(conflict.current, held)
        expect(expectTag(yield* renewOf(store, held), "Renewed").record.data).toBe(data)
        expect((yield* inspectSome(store, name("data"))).data).toBe(data)
        const [listed] = yield* listAll(store, prefix)
        expect(listed?.data).toBe(data)
      }))

    test("of maxDataBytes, with a holder of maxHolderBytes and the longest name, is taken; one byte more is refused", ({ name, store }) =>
      Effect.gen(function*() {
        const base = name("big/")
        const lockName = base + "x".repeat(store.maxNameBytes - utf8Bytes(base))
        // Four- and two-byte characters: the limits are in UTF-8 bytes, not in string length.
        const data = "🔒".repeat(LockRecord.maxDataBytes / 4)
        const holder = "é".repeat(LockRecord.maxHolderBytes / 2)
        expect([utf8Bytes(lockName), utf8Bytes(data), utf8Bytes(holder)]).toEqual([
          store.maxNameBytes,
          LockRecord.maxDataBytes,
          LockRecord.maxHolderBytes
        ])
        const held = yield* acquireNew(store, lockName, { data, holder })
        expect([held.data === data, held.holder === holder]).toEqual([true, true])
        const renewed = expectTag(yield* renewOf(store, held), "Renewed").record
        expect(renewed.data === data).toBe(true)
        expect((yield* inspectSome(store, lockName)).data === data).toBe(true)
        expectTag(yield* releaseOf(store, held), "Released")

        for (const overrides of [{ data: data + "x" }, { holder: holder + "x" }, { data, holder: holder + "x" }]) {
          yield* expectPayloadRefused(store, lockName, overrides)
        }
        // Refused before anything was written: the lock is still free, with the fence it had.
        const record = yield* inspectSome(store, lockName)
        expect([record.owner, record.fence]).toEqual([undefined, held.fence])
      }))

    test("or a holder with a lone surrogate is refused before anything is written", ({ name, store }) =>
      Effect.gen(function*() {
        const lockName = name("ill-formed-payload")
        for (const overrides of [{ data: "ab\uD83D" }, { holder: "worker \uDC00" }]) {
          yield* expectPayloadRefused(store, lockName, overrides)
        }
        expect(Option.isNone(yield* store.inspect(lockName))).toBe(true)
      }))

    test("is cleared on release and replaced (or absent) for the next holder", ({ name, store }) =>
      Effect.gen(function*() {
        const first = yield* acquireNew(store, name("data"), { data: "first" })
        expectTag(yield* releaseOf(store, first), "Released")
        expect((yield* inspectSome(store, name("data"))).data).toBeUndefined()
        const second = yield* acquireNew(store, name("data"), { data: "second" })
        expect(second.data).toBe("second")
        yield* TestClock.adjust(leaseMs + maxClockSkewMs + 1)
        const third = yield* acquireNew(store, name("data"), { data: undefined })
        expect(third.data).toBeUndefined()
        expect((yield* inspectSome(store, name("data"))).data).toBeUndefined()
      }))
  })
}
