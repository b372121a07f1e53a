/**
 * The conformance tests of `list`: prefixes, pages and limits.
 *
 * @internal
 */
import { describe, expect } from "@effect/vitest"
import type * as LockRecord from "@leasehold/lock/LockRecord"
import type * as LockStore from "@leasehold/lock/LockStore"
import * as Effect from "effect/Effect"
import { type Test } from "./fixture.js"
import { acquireNew, expectTag, fields, inspectSome, listAll, releaseOf } from "./helpers.js"

// Order is store-defined: what every store owes is each matching record exactly once across the pages.
const labels = ["b", "a", "c/1", "a/x", "a0", "B", "b-1"]

/** The listed names are exactly `expected`: none missing, none extra, none twice. */
const expectExactlyOnce = (listed: ReadonlyArray<LockRecord.LockRecord>, expected: Iterable<string>) => {
  const names = listed.map((record) => record.name)
  const twice = names.filter((name, index) => names.indexOf(name) !== index)
  expect(twice, "names listed more than once").toEqual([])
  expect([...names].sort()).toEqual(Array.from(expected).sort())
}

const populate = (store: LockStore.LockStore, base: string) =>
  Effect.gen(function*() {
    const records = new Map<string, LockRecord.LockRecord>()
    for (const label of labels) {
      const record = yield* acquireNew(store, base + label)
      records.set(record.name, record)
    }
    // Released records are still records: they carry the fence.
    const released = records.get(base + "a0")!
    expectTag(yield* releaseOf(store, released), "Released")
    records.set(released.name, yield* inspectSome(store, released.name))
    return records
  })

/**
 * Registers the `list` tests.
 *
 * @internal
 */
export const list = (test: Test): void => {
  describe("list", () => {
    test("filters by prefix and returns every record exactly once", ({ prefix, store }) =>
      Effect.gen(function*() {
        const base = prefix + "list/"
        const records = yield* populate(store, base)
        // Neighbours that share part of the prefix but do not start with it.
        yield* acquireNew(store, prefix + "list")
        yield* acquireNew(store, prefix + "list-other/a")
        yield* acquireNew(store, prefix + "lisT/a")

        const listed = yield* listAll(store, base)
        expectExactlyOnce(listed, records.keys())
        for (const record of listed) {
          expect(fields(record)).toEqual(fields(records.get(record.name)!))
        }
      }))

    for (const limit of [1, 2, 3, 7, 50]) {
      test(`paginates with limit ${limit}: pages within the limit, every record exactly once, to an end`, ({ prefix, store }) =>
        Effect.gen(function*() {
          const base = prefix + "pages/"
          const records = yield* populate(store, base)
          yield* acquireNew(store, prefix + "pages-after")
          // listAll checks each page against the limit and fails a listing whose cursor never ends.
          const listed = yield* listAll(store, base, limit)
          expectExactlyOnce(listed, records.keys())
          for (const record of listed) {
            expect(fields(record)).toEqual(fields(records.get(record.name)!))
          }
        }))
    }

    test("a limit that is not a whole number of 1 or more fails with a non-retryable error naming it", ({ prefix, store }) =>
      Effect.gen(function*() {
        yield* acquireNew(store, prefix + "limited")
        for (const limit of [0, -1, 1.5, NaN, -Infinity, "2" as unknown as number]) {
          const error = yield* Effect.flip(store.list({ prefix, limit }))
          expect(error._tag, `limit ${String(limit)}`).toBe("LockStoreError")
          expect(error.operation).toBe("list")
          expect(error.retryable).toBe(false)
          expect(error.message).toContain(`limit ${typeof limit === "string" ? JSON.stringify(limit) : limit}`)
        }
      }))

    test("an infinite limit is no limit: one page of every record, no cursor", ({ prefix, store }) =>
      Effect.gen(function*() {
        const records = yield* populate(store, prefix + "all/")
        const page = yield* store.list({ prefix: prefix + "all/", limit: Infinity })
        expectExactlyOnce(page.records, records.keys())
        expect(page.cursor).toBeUndefined()
      }))

    test("of a prefix with no records is empty", ({ prefix, store }) =>
      Effect.gen(function*() {
        yield* acquireNew(store, prefix + "elsewhere")
        expect(yield* listAll(store, prefix + "nothing/")).toEqual([])
        expect(yield* listAll(store, prefix + "nothing/", 2)).toEqual([])
      }))
  })
}
