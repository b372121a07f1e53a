/**
 * An operator's view of one family in a table: its locks and its semaphores together, page by page, in one Query
 * (sort-key mode) or Scan (partition-key-only mode) per page, each item told apart by its key and its `limit`.
 *
 * The store's own `list` returns locks only; a tool that shows a table as it is (the CLI) needs both kinds, and
 * reading the family twice, once per kind, would double what it costs on a large table.
 *
 * @internal
 */
import type { QueryCommandInput, ScanCommandInput } from "@aws-sdk/client-dynamodb"
import { LockStoreError } from "@leasehold/lock/LockError"
import * as Utf8 from "@leasehold/lock/Utf8"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type { Item as TableItem, Page as ItemsPage } from "../DynamoLockItems.js"
import * as Cursor from "./cursor.js"
import * as Expressions from "./expressions.js"
import * as Item from "./item.js"
import * as Keys from "./keys.js"
import * as SemaphoreKeys from "./semaphoreKeys.js"
import type * as StoreContext from "./storeContext.js"

type ItemMap = Expressions.ItemMap

const stringAt = (item: ItemMap, attribute: string): string | undefined => {
  const value = item[attribute]
  return value !== undefined && "S" in value && typeof value.S === "string" ? value.S : undefined
}

/**
 * Sort-key mode: the family is one partition, where a semaphore's sort key is `#` and its name and a lock's is its
 * name. The lock `#x` and the semaphore `x` share a key; the item's `limit` says which one it is. The cursor is the
 * sort key of the page's last item (a lock's name, as the store's own `list` resumes from).
 */
const byQuery = (context: StoreContext.StoreContext, sortKey: string, cursor: string | undefined, limit: number) =>
  Effect.gen(function*() {
    const { layout } = context
    if (
      cursor !== undefined && (cursor === "" || !Utf8.isWellFormed(cursor) || !Utf8.fits(cursor, Keys.sortKeyMaxBytes))
    ) {
      return yield* Cursor.malformed(cursor, "it is not a sort key of this table", "table")
    }
    const items: Array<{ readonly item: TableItem; readonly sortKey: string }> = []
    let startKey: ItemMap | undefined = cursor === undefined
      ? undefined
      : { [layout.partitionKey]: Expressions.str(layout.prefix), [sortKey]: Expressions.str(cursor) }
    while (true) {
      const input: QueryCommandInput = {
        TableName: context.tableName,
        KeyConditionExpression: "#pk = :family",
        ExpressionAttributeNames: { "#pk": layout.partitionKey },
        ExpressionAttributeValues: { ":family": Expressions.str(layout.prefix) },
        ConsistentRead: true,
        // One more than the page holds says whether there is a next page, so the last page has no cursor.
        Limit: Math.min(limit + 1 - items.length, Cursor.maxRequestLimit),
        ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey })
      }
      const response = yield* context.query(input)
      if (response._tag === "ConditionFailed") break
      for (const item of response.output.Items ?? []) {
        const decoded: TableItem = Item.isSemaphoreItem(item)
          ? { _tag: "Semaphore", record: yield* context.decodeSemaphore("list", item) }
          : { _tag: "Lock", record: yield* context.decode("list", item) }
        items.push({ item: decoded, sortKey: stringAt(item, sortKey) ?? "" })
      }
      if (items.length > limit) {
        const page = items.slice(0, limit)
        return { items: page.map((entry) => entry.item), cursor: page[page.length - 1]?.sortKey }
      }
      startKey = response.output.LastEvaluatedKey
      if (startKey === undefined) break
    }
    return { items: items.map((entry) => entry.item), cursor: undefined }
  })

/**
 * Partition-key-only mode: a Scan, as the store's `list` makes it (its `Limit` counts the items examined, so a page
 * never holds more than asked and ends at a `LastEvaluatedKey`), keeping the family's lock keys and semaphore keys.
 * Without a prefix any key may be the family's, so nothing is filtered on the server.
 */
const byScan = (context: StoreContext.StoreContext, cursor: string | undefined, limit: number) =>
  Effect.gen(function*() {
    const { layout, semaphoreKeys } = context
    let startKey: ItemMap | undefined = undefined
    if (cursor !== undefined) {
      const decoded = Cursor.decode(cursor, layout.partitionKey)
      if (Either.isLeft(decoded)) return yield* Cursor.malformed(cursor, decoded.left, "table")
      startKey = decoded.right
    }
    const lockKeys = layout.keyPrefixOf("")
    const filter: Partial<ScanCommandInput> = lockKeys === "" ? {} : {
      FilterExpression: "begins_with(#pk, :locks) OR begins_with(#pk, :semaphores)",
      ExpressionAttributeNames: { "#pk": layout.partitionKey },
      ExpressionAttributeValues: {
        ":locks": Expressions.str(lockKeys),
        ":semaphores": Expressions.str(SemaphoreKeys.marker + lockKeys)
      }
    }
    const items: Array<TableItem> = []
    while (true) {
      const response = yield* context.scan({
        TableName: context.tableName,
        ConsistentRead: true,
        Limit: Math.min(limit - items.length, Cursor.maxRequestLimit),
        ...filter,
        ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey })
      })
      if (response._tag === "ConditionFailed") return { items, cursor: undefined }
      for (const item of response.output.Items ?? []) {
        // Keys of other families are skipped; a lock key never starts with an unescaped "#", a semaphore key always.
        if (layout.nameOf(item) !== undefined) {
          items.push({ _tag: "Lock", record: yield* context.decode("list", item) })
        } else if (semaphoreKeys.nameOf(item) !== undefined) {
          items.push({ _tag: "Semaphore", record: yield* context.decodeSemaphore("list", item) })
        }
      }
      startKey = response.output.LastEvaluatedKey
      if (startKey === undefined) return { items, cursor: undefined }
      if (items.length >= limit) return { items, cursor: Cursor.encode(startKey) }
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
