/**
 * The operator's reads: `inspect` one lock, and `list` a family page by page, as a Query over its partition in
 * sort-key mode or a Scan of the table in partition-key-only mode, each resumed from a cursor. The requests and the
 * paging decisions are the core's `Listing`.
 *
 * @internal
 */
import * as Checked from "@leasehold/core/Checked"
import * as Listing from "@leasehold/core/dynamodb/Listing"
import * as LockItem from "@leasehold/core/dynamodb/LockItem"
import * as Pager from "@leasehold/core/dynamodb/Pager"
import { LockStoreError } from "@leasehold/lock/LockError"
import type { LockRecord } from "@leasehold/lock/LockRecord"
import type * as LockStore from "@leasehold/lock/LockStore"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as StoreContext from "../store/storeContext.js"

const emptyPage: LockStore.ListPage = { records: [], cursor: undefined }

const listPage = (page: Pager.Page<LockRecord>): LockStore.ListPage => ({ records: page.items, cursor: page.cursor })

/** A cursor that is not one a page returned: refused before anything is sent. */
const malformedCursor = (message: string) =>
  Effect.fail(new LockStoreError({ operation: "list", retryable: false, mayHaveApplied: false, message }))

/**
 * Sort-key mode: one Query over the family's partition, in sort key order, from the cursor (the last name of the
 * previous page) on. Asking for one record more than the page says whether a next page exists, so the last page has
 * no cursor (as in memory).
 */
const listByQuery = (context: StoreContext.StoreContext, sortKey: string, page: Listing.PageRequest) =>
  Effect.gen(function*() {
    const { layout } = context
    const { limit, matches, prefix } = page
    const start = Listing.lockQueryStart(layout, sortKey, page)
    if (start._tag === "Malformed") return yield* malformedCursor(start.message)
    if (start._tag === "Done") return emptyPage
    const pager = Pager.query<LockRecord>(
      context.tableName,
      Listing.queryCondition(layout, sortKey, prefix),
      limit,
      start.startKey,
      (record) => record.name
    )
    while (true) {
      const response = yield* context.query(pager.input())
      if (response._tag === "ConditionFailed") return listPage(pager.end())
      for (const item of response.output.Items ?? []) {
        // A family's partition holds its semaphores too (sort key "#" + name): they are not locks.
        if (LockItem.isSemaphoreItem(item)) continue
        const record = yield* context.decode("list", item)
        if (matches(record.name)) pager.add(record)
      }
      const done = pager.next(response.output.LastEvaluatedKey)
      if (done !== undefined) return listPage(done)
    }
  })

/**
 * Partition-key-only mode: a paginated Scan in the table's own (hash) order, filtered on the key prefix, resumed
 * from the cursor (the last evaluated key, encoded). Every page ends exactly at a `LastEvaluatedKey`, so following
 * cursors examines each item of the table once in all, never the table per page. Sparse matches cost more Scans for
 * one page; a large lock family belongs in sort-key mode, where listing is a Query.
 */
const listByScan = (context: StoreContext.StoreContext, page: Listing.PageRequest) =>
  Effect.gen(function*() {
    const { layout } = context
    const { limit, matches, prefix } = page
    const start = Listing.scanStart(layout, page.cursor, "store")
    if (!Checked.isOk(start)) return yield* malformedCursor(start.message)
    const pager = Pager.scan<LockRecord, object>(
      context.tableName,
      Listing.lockScanFilter(layout, prefix),
      limit,
      start.value
    )
    while (true) {
      const response = yield* context.scan(pager.input())
      // A Scan has no condition to fail.
      if (response._tag === "ConditionFailed") return listPage(pager.end())
      for (const item of response.output.Items ?? []) {
        // The filter can not tell every other family's key from ours (without a prefix, ours are the keys without
        // an unescaped "#"): an item of another family is skipped, not reported as malformed.
        const name = layout.nameOf(item)
        if (name !== undefined && matches(name)) pager.add(yield* context.decode("list", item))
      }
      const done = pager.next(response.output.LastEvaluatedKey)
      if (done !== undefined) return listPage(done)
    }
  })

/** @internal */
export const make = (context: StoreContext.StoreContext): Pick<LockStore.LockStore, "inspect" | "list"> => {
  const { layout } = context

  const inspect = (name: string): Effect.Effect<Option.Option<LockRecord>, LockStoreError> =>
    context.keyed(
      "inspect",
      name,
      (key, clock) =>
        Effect.map(
          context.getItem("inspect", key, clock),
          (record) => record === undefined ? Option.none() : Option.some(record)
        )
    ).pipe(Effect.withSpan("DynamoLockStore.inspect", StoreContext.operatorSpan(name)))

  const list = (request: LockStore.ListRequest): Effect.Effect<LockStore.ListPage, LockStoreError> => {
    const page = Listing.pageRequest(request, layout.maxNameBytes)
    if (!Checked.isOk(page)) {
      return Effect.fail(new LockStoreError({ operation: "list", retryable: false, message: page.message }))
    }
    if (page.value === undefined) return Effect.succeed({ records: [], cursor: undefined })
    const prefix = request.prefix ?? ""
    return (layout.sortKey === undefined
      ? listByScan(context, page.value)
      : listByQuery(context, layout.sortKey, page.value))
      .pipe(Effect.withSpan("DynamoLockStore.list", { attributes: { "lock.prefix": prefix } }))
  }

  return { inspect, list }
}
