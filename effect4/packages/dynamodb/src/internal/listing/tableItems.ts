/**
 * An operator's view of one family in a table: its locks and its semaphores together, page by page, in one Query
 * (sort-key mode) or Scan (partition-key-only mode) per page, each item told apart by its key and its `limit`.
 *
 * The store's own `list` returns locks only; a tool that shows a table as it is (the CLI) needs both kinds, and
 * reading the family twice, once per kind, would double what it costs on a large table.
 *
 * @internal
 */
import * as Checked from "@leasehold/core/Checked"
import { stringAt } from "@leasehold/core/dynamodb/AttributeValue"
import * as Listing from "@leasehold/core/dynamodb/Listing"
import * as LockItem from "@leasehold/core/dynamodb/LockItem"
import * as Pager from "@leasehold/core/dynamodb/Pager"
import { LockStoreError } from "@leasehold/lock/LockError"
import * as Effect from "effect/Effect"
import type { Item as TableItem, Page as ItemsPage } from "../../DynamoLockItems.js"
import type * as StoreContext from "../store/storeContext.js"

/** A cursor that is not one a page of the table returned: refused before anything is sent. */
const malformedCursor = (message: string) =>
  Effect.fail(new LockStoreError({ operation: "list", retryable: false, mayHaveApplied: false, message }))

/**
 * Sort-key mode: the family is one partition, where a semaphore's sort key is `#` and its name and a lock's is its
 * name. The lock `#x` and the semaphore `x` share a key; the item's `limit` says which one it is. The cursor is the
 * sort key of the page's last item (a lock's name, as the store's own `list` resumes from).
 */
const byQuery = (context: StoreContext.StoreContext, sortKey: string, cursor: string | undefined, limit: number) =>
  Effect.gen(function*() {
    const { layout } = context
    const start = Listing.familyQueryStart(layout, sortKey, cursor)
    if (!Checked.isOk(start)) return yield* malformedCursor(start.message)
    const pager = Pager.query<{ readonly item: TableItem; readonly sortKey: string }>(
      context.tableName,
      Listing.queryCondition(layout, sortKey, ""),
      limit,
      start.value,
      (entry) => entry.sortKey
    )
    const itemsPage = (page: Pager.Page<{ readonly item: TableItem }>): ItemsPage => ({
      items: page.items.map((entry) => entry.item),
      cursor: page.cursor
    })
    while (true) {
      // One more than the page holds says whether there is a next page, so the last page has no cursor.
      const response = yield* context.query(pager.input())
      if (response._tag === "ConditionFailed") return itemsPage(pager.end())
      for (const item of response.output.Items ?? []) {
        const decoded: TableItem = LockItem.isSemaphoreItem(item)
          ? { _tag: "Semaphore", record: yield* context.decodeSemaphore("list", item) }
          : { _tag: "Lock", record: yield* context.decode("list", item) }
        pager.add({ item: decoded, sortKey: stringAt(item, sortKey) ?? "" })
      }
      const done = pager.next(response.output.LastEvaluatedKey)
      if (done !== undefined) return itemsPage(done)
    }
  })

/**
 * Partition-key-only mode: a Scan, as the store's `list` makes it (its `Limit` counts the items examined, so a page
 * never holds more than asked and ends at a `LastEvaluatedKey`), keeping the family's lock keys and semaphore keys.
 * Without a prefix any key may be the family's, so nothing is filtered on the server.
 */
const byScan = (context: StoreContext.StoreContext, cursor: string | undefined, limit: number) =>
  Effect.gen(function*() {
    const { layout, semaphoreKeys } = context
    const start = Listing.scanStart(layout, cursor, "table")
    if (!Checked.isOk(start)) return yield* malformedCursor(start.message)
    const pager = Pager.scan<TableItem, object>(context.tableName, Listing.familyScanFilter(layout), limit, start.value)
    while (true) {
      const response = yield* context.scan(pager.input())
      if (response._tag === "ConditionFailed") return pager.end()
      for (const item of response.output.Items ?? []) {
        // Keys of other families are skipped; a lock key never starts with an unescaped "#", a semaphore key always.
        if (layout.nameOf(item) !== undefined) {
          pager.add({ _tag: "Lock", record: yield* context.decode("list", item) })
        } else if (semaphoreKeys.nameOf(item) !== undefined) {
          pager.add({ _tag: "Semaphore", record: yield* context.decodeSemaphore("list", item) })
        }
      }
      const done = pager.next(response.output.LastEvaluatedKey)
      if (done !== undefined) return done
    }
  })

/**
 * One page of the family's items from `cursor` on, at most `limit` of them (a whole number of at least 1, or
 * `Infinity`), in the table's order: sort key order in sort-key mode, the Scan's hash order otherwise.
 *
 * @internal
 */
export const list = (
  context: StoreContext.StoreContext,
  cursor: string | undefined,
  limit: number
): Effect.Effect<ItemsPage, LockStoreError> =>
  context.layout.sortKey === undefined
    ? byScan(context, cursor, limit)
    : byQuery(context, context.layout.sortKey, cursor, limit)
