/**
 * The conformance tests of a lock's `data` (and `holder`): round trips, size limits, ill-formed text, and the renew
 * that replaces the data (`setData`).
 *
 * @internal
 */
import { describe, expect } from "@effect/vitest"
import * as LockRecord from "@leasehold/lock/LockRecord"
import type * as LockStore from "@leasehold/lock/LockStore"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { TestClock } from "../effectLine.js"
import { absolute, leaseMs, makeOwner, maxClockSkewMs, type Test, utf8Bytes } from "./fixture.js"
import { acquireNew, attempt, expectTag, fields, inspectSome, listAll, releaseOf, renewOf } from "./helpers.js"

/** How a store call ended, in brief: a failing comparison of the records themselves would print megabytes. */
const brief = <A extends { readonly _tag: string }, E extends { readonly _tag: string; readonly retryable: boolean }>(
  self: Effect.Effect<A, E>
) => Effect.match(self, { onFailure: (error) => [error._tag, error.retryable], onSuccess: (answer) => answer._tag })

/** An attempt with `overrides` fails with a non-retryable `LockStoreError`. */
const expectPayloadRefused = (
  store: LockStore.LockStore,
  lockName: string,
  overrides: Partial<Omit<LockStore.AcquireRequest, "name" | "takeover">>
) =>
  Effect.map(
    brief(attempt(store, lockName, absolute(), overrides)),
    (outcome) => expect(outcome).toEqual(["LockStoreError", false])
  )

/** A renew of `record`'s holding that sets (or, with `undefined`, removes) the data. */
const setDataOf = (store: LockStore.LockStore, record: LockRecord.LockRecord, data: string | undefined) =>
  store.renew({ name: record.name, owner: record.owner!, fence: record.fence, leaseMs, setData: { data } })

/** A renew with `setData` fails with a non-retryable `LockStoreError`. */
const expectSetDataRefused = (store: LockStore.LockStore, record: LockRecord.LockRecord, data: string) =>
  Effect.map(brief(setDataOf(store, record, data)), (outcome) => expect(outcome).toEqual(["LockStoreError", false]))

/** Registers the tests of a renew with `setData`. */
const setData = (test: Test): void => {
  describe("set by a renew (setData)", () => {
    setDataWrites(test)
    setDataRefusals(test)
  })
}

/** What a renew with `setData` writes. */
const setDataWrites = (test: Test): void => {
  test("is replaced in the renew's one write, which extends the lease and changes the version like a renew", ({ name, store }) =>
    Effect.gen(function*() {
      const held = yield* acquireNew(store, name("set"), { data: "step 1" })
      yield* TestClock.adjust(leaseMs / 3)
      const now = yield* Clock.currentTimeMillis
      const data = JSON.stringify({ step: 2, by: "Zoë 🔒" })
      const updated = expectTag(yield* setDataOf(store, held, data), "Renewed").record
      expect(fields(updated)).toEqual({ ...fields(held), leaseUntil: now + leaseMs, version: updated.version, data })
      expect(updated.version).not.toBe(held.version)
      expect(fields(yield* inspectSome(store, name("set")))).toEqual(fields(updated))
    }))

  test("is removed by setData with no data, and set again after", ({ name, store }) =>
    Effect.gen(function*() {
      const held = yield* acquireNew(store, name("remove"), { data: "step 1" })
      const removed = expectTag(yield* setDataOf(store, held, undefined), "Renewed").record
      expect(removed.data).toBeUndefined()
      expect((yield* inspectSome(store, name("remove"))).data).toBeUndefined()
      // Removing what is not there is no error.
      expectTag(yield* setDataOf(store, held, undefined), "Renewed")
      const set = expectTag(yield* setDataOf(store, held, "step 3"), "Renewed").record
      expect([set.data, (yield* inspectSome(store, name("remove"))).data]).toEqual(["step 3", "step 3"])
    }))

  test("is left as it is by a renew without setData, whether set at acquire or by an update", ({ name, store }) =>
    Effect.gen(function*() {
      const held = yield* acquireNew(store, name("untouched"), { data: "at acquire" })
      expect(expectTag(yield* renewOf(store, held), "Renewed").record.data).toBe("at acquire")
      expectTag(yield* setDataOf(store, held, "updated"), "Renewed")
      yield* TestClock.adjust(1_000)
      const renewed = expectTag(yield* renewOf(store, held), "Renewed").record
      expect([renewed.data, (yield* inspectSome(store, name("untouched"))).data]).toEqual(["updated", "updated"])
      // And explicitly undefined is the same as absent.
      const plain = yield* store.renew({
        name: held.name,
        owner: held.owner!,
        fence: held.fence,
        leaseMs,
        setData: undefined
      })
      expect(expectTag(plain, "Renewed").record.data).toBe("updated")
    }))
}

/** What a renew with `setData` refuses, and writes nothing for. */
const setDataRefusals = (test: Test): void => {
  test("changes nothing for a wrong fence, a wrong owner, a new holder or a released lock", ({ expectLostTo, name, store }) =>
    Effect.gen(function*() {
      const held = yield* acquireNew(store, name("owner"), { data: "mine" })
      const wrongFence = yield* store.renew({
        name: held.name,
        owner: held.owner!,
        fence: held.fence + 1,
        leaseMs,
        setData: { data: "forged" }
      })
      expectLostTo(expectTag(wrongFence, "Lost").current, held)
      const wrongOwner = yield* store.renew({
        name: held.name,
        owner: makeOwner(),
        fence: held.fence,
        leaseMs,
        setData: { data: undefined }
      })
      expectLostTo(expectTag(wrongOwner, "Lost").current, held)
      expect(fields(yield* inspectSome(store, name("owner")))).toEqual(fields(held))

      // After a takeover the old holder's update neither writes nor removes the new holder's data.
      yield* TestClock.adjust(leaseMs + maxClockSkewMs + 1)
      const thief = yield* acquireNew(store, name("owner"), { holder: "holder-b", data: "theirs" })
      expectLostTo(expectTag(yield* setDataOf(store, held, "late"), "Lost").current, thief)
      expectLostTo(expectTag(yield* setDataOf(store, held, undefined), "Lost").current, thief)
      expect(fields(yield* inspectSome(store, name("owner")))).toEqual(fields(thief))

      // A released lock stays free and without data.
      expectTag(yield* releaseOf(store, thief), "Released")
      expectLostTo(expectTag(yield* setDataOf(store, thief, "after release"), "Lost").current, undefined)
      const record = yield* inspectSome(store, name("owner"))
      expect([record.owner, record.data]).toEqual([undefined, undefined])
    }))

  test("of a name never acquired is Lost and creates no record", ({ expectLostTo, name, store }) =>
    Effect.gen(function*() {
      const lost = yield* store.renew({
        name: name("ghost"),
        owner: makeOwner(),
        fence: 1,
        leaseMs,
        setData: { data: "x" }
      })
      expectLostTo(expectTag(lost, "Lost").current, undefined)
      expect(Option.isNone(yield* store.inspect(name("ghost")))).toBe(true)
    }))

  test("of maxDataBytes is taken; one byte more, or a lone surrogate, is refused before anything is written", ({ name, store }) =>
    Effect.gen(function*() {
      const held = yield* acquireNew(store, name("limit"), { data: "small" })
      const data = "🔒".repeat(LockRecord.maxDataBytes / 4)
      const big = expectTag(yield* setDataOf(store, held, data), "Renewed").record
      expect(big.data === data).toBe(true)
      expect((yield* inspectSome(store, name("limit"))).data === data).toBe(true)
      expectTag(yield* setDataOf(store, held, "small"), "Renewed")
      const before = yield* inspectSome(store, name("limit"))
      yield* expectSetDataRefused(store, held, data + "x")
      yield* expectSetDataRefused(store, held, "ab\uD83D")
      // Nothing was written: not the data, not the lease, not the version.
      expect(fields(yield* inspectSome(store, name("limit")))).toEqual(fields(before))
    }))

  test("does not outlive the holding: cleared on release, not seen by the next holder", ({ name, store }) =>
    Effect.gen(function*() {
      const first = yield* acquireNew(store, name("next"))
      expectTag(yield* setDataOf(store, first, "first's progress"), "Renewed")
      expectTag(yield* releaseOf(store, first), "Released")
      expect((yield* inspectSome(store, name("next"))).data).toBeUndefined()
      const second = yield* acquireNew(store, name("next"))
      expectTag(yield* setDataOf(store, second, "second's progress"), "Renewed")
      // Taken over: the new holder starts with its own data (none), not the dead holder's update.
      yield* TestClock.adjust(leaseMs + maxClockSkewMs + 1)
      const third = yield* acquireNew(store, name("next"))
      expect([third.data, (yield* inspectSome(store, name("next"))).data]).toEqual([undefined, undefined])
    }))
}

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

    setData(test)
  })
}
