/**
 * Listing a family page by page: the requests (a Query over the family's partition in sort-key mode, a Scan of the
 * table in partition-key-only mode), where each starts, and when a page is full. The store's `list` (locks) and the
 * operator's listing of a family (locks and semaphores together) share them; the shell sends the requests and
 * decodes the items.
 *
 * @since 1.0.0
 */
import * as Checked from "../Checked.js"
import * as Utf8 from "../record/Utf8.js"
import * as LockProtocol from "../store/LockProtocol.js"
import { type ItemMap, str } from "./AttributeValue.js"
import * as Cursor from "./Cursor.js"
import * as Keys from "./Keys.js"
import type { KeyLayout } from "./Keys.js"
import * as SemaphoreKeys from "./SemaphoreKeys.js"

/**
 * What one page of the store's `list` is read from: the server-side prefix, and which names it returns belong to
 * the page.
 *
 * @since 1.0.0
 * @category models
 */
export interface PageRequest {
  readonly prefix: string
  readonly matches: (name: string) => boolean
  readonly cursor: string | undefined
  readonly limit: number
}

/**
 * The page a `list` request asks for, `undefined` when no record can match its prefix, or what is wrong with its
 * limit.
 *
 * @since 1.0.0
 * @category requests
 */
export const pageRequest = (
  request: LockProtocol.ListRequest,
  maxNameBytes: number
): Checked.Checked<PageRequest | undefined> => {
  const prefix = request.prefix ?? ""
  const limit = request.limit ?? LockProtocol.defaultListLimit
  const problem = LockProtocol.listLimitProblem(limit)
  if (problem !== undefined) return Checked.invalid(problem)
  // DynamoDB compares UTF-8, where a lone surrogate becomes U+FFFD. Names are well-formed, so a prefix can match
  // one only when it ends in the first half of a character the name completes: the server is asked for what comes
  // before that half, and the names it returns are checked against the whole prefix.
  const serverPrefix = Utf8.isWellFormed(prefix) ? prefix : prefix.slice(0, -1)
  // No record can match a prefix longer than any name, or one that is not well-formed in any other way.
  if (
    !Utf8.fits(prefix, maxNameBytes) || !Utf8.isWellFormed(serverPrefix) ||
    (serverPrefix !== prefix && !/[\uD800-\uDBFF]$/.test(prefix))
  ) {
    return Checked.ok(undefined)
  }
  return Checked.ok({
    prefix: serverPrefix,
    matches: serverPrefix === prefix ? (_: string) => true : (name: string) => name.startsWith(prefix),
    cursor: request.cursor,
    limit
  })
}

/**
 * The parts of a Query that say what it reads.
 *
 * @since 1.0.0
 * @category models
 */
export interface QueryCondition {
  readonly KeyConditionExpression: string
  readonly ExpressionAttributeNames: Record<string, string>
  readonly ExpressionAttributeValues: ItemMap
}

/**
 * The family's partition, or the part of it whose sort keys begin with `prefix`.
 *
 * @since 1.0.0
 * @category requests
 */
export const queryCondition = (layout: KeyLayout, sortKey: string, prefix: string): QueryCondition =>
  prefix === ""
    ? {
      KeyConditionExpression: "#pk = :family",
      ExpressionAttributeNames: { "#pk": layout.partitionKey },
      ExpressionAttributeValues: { ":family": str(layout.prefix) }
    }
    : {
      KeyConditionExpression: "#pk = :family AND begins_with(#sk, :prefix)",
      ExpressionAttributeNames: { "#pk": layout.partitionKey, "#sk": sortKey },
      ExpressionAttributeValues: { ":family": str(layout.prefix), ":prefix": str(prefix) }
    }

/**
 * The start key of a Query from a sort key value (exclusive).
 *
 * @since 1.0.0
 * @category requests
 */
export const queryStartKey = (layout: KeyLayout, sortKey: string, after: string): ItemMap => ({
  [layout.partitionKey]: str(layout.prefix),
  [sortKey]: str(after)
})

/**
 * Where a Query of the store's `list` starts: from the cursor (the last name of the previous page), from the
 * beginning, or nowhere (`Done`: the cursor sorts after every match), or why the cursor is malformed.
 *
 * @since 1.0.0
 * @category models
 */
export type QueryStart =
  | { readonly _tag: "From"; readonly startKey: ItemMap | undefined }
  | { readonly _tag: "Done" }
  | { readonly _tag: "Malformed"; readonly message: string }

/**
 * @since 1.0.0
 * @category requests
 */
export const lockQueryStart = (layout: KeyLayout, sortKey: string, page: PageRequest): QueryStart => {
  const { cursor, prefix } = page
  if (cursor === undefined) return { _tag: "From", startKey: undefined }
  if (layout.nameProblem(cursor) !== undefined) {
    return {
      _tag: "Malformed",
      message: Cursor.malformedMessage(cursor, `it is not a lock name of this store`, "store")
    }
  }
  // DynamoDB rejects a start key outside the key condition; a cursor outside the prefix means "from the start"
  // when it sorts before every match and "nothing left" when it sorts after them.
  if (!cursor.startsWith(prefix)) return cursor > prefix ? { _tag: "Done" } : { _tag: "From", startKey: undefined }
  return { _tag: "From", startKey: queryStartKey(layout, sortKey, cursor) }
}

/**
 * The input of one Query of a page that holds `found` items so far: asking for one more than the page holds says
 * whether a next page exists, so the last page has no cursor.
 *
 * @since 1.0.0
 * @category requests
 */
export const queryInput = (
  tableName: string,
  condition: QueryCondition,
  limit: number,
  found: number,
  startKey: ItemMap | undefined
) => ({
  TableName: tableName,
  ...condition,
  ConsistentRead: true,
  Limit: Math.min(limit + 1 - found, Cursor.maxRequestLimit),
  ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey })
})

/**
 * A Query's page once it holds more than `limit` items: the first `limit`, and the cursor of the last; `undefined`
 * while it is not full.
 *
 * @since 1.0.0
 * @category paging
 */
export const fullQueryPage = <A>(
  found: ReadonlyArray<A>,
  limit: number,
  cursorOf: (item: A) => string
): { readonly items: ReadonlyArray<A>; readonly cursor: string | undefined } | undefined => {
  if (found.length <= limit) return undefined
  const page = found.slice(0, limit)
  const last = page[page.length - 1]
  return { items: page, cursor: last === undefined ? undefined : cursorOf(last) }
}

/**
 * Where a Scan starts: from the item a cursor stands for (the last evaluated key, encoded), from the beginning, or
 * why the cursor is malformed, as a page of `source` says it.
 *
 * @since 1.0.0
 * @category requests
 */
export const scanStart = (
  layout: KeyLayout,
  cursor: string | undefined,
  source: "store" | "table"
): Checked.Checked<ItemMap | undefined> => {
  if (cursor === undefined) return Checked.ok(undefined)
  const decoded = Cursor.decode(cursor, layout.partitionKey)
  return Checked.isOk(decoded) ? decoded : Checked.invalid(Cursor.malformedMessage(cursor, decoded.message, source))
}

/**
 * The filter of a Scan of the store's `list`: the keys of names that start with `prefix` (none without a prefix and
 * a family: every key may be one).
 *
 * @since 1.0.0
 * @category requests
 */
export const lockScanFilter = (layout: KeyLayout, prefix: string) => {
  const keyPrefix = layout.keyPrefixOf(prefix)
  return keyPrefix === "" ? {} : {
    FilterExpression: "begins_with(#pk, :prefix)",
    ExpressionAttributeNames: { "#pk": layout.partitionKey },
    ExpressionAttributeValues: { ":prefix": str(keyPrefix) }
  }
}

/**
 * The input of one Scan of a page that holds `found` items so far. A Scan's `Limit` counts items examined before
 * the filter, so asking for the items still missing can never return more than the page holds, and every page ends
 * exactly at a `LastEvaluatedKey`: following cursors examines each item of the table once in all.
 *
 * @since 1.0.0
 * @category requests
 */
export const scanInput = <F extends object>(
  tableName: string,
  filter: F,
  limit: number,
  found: number,
  startKey: ItemMap | undefined
) => ({
  TableName: tableName,
  ConsistentRead: true,
  Limit: Math.min(limit - found, Cursor.maxRequestLimit),
  ...filter,
  ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey })
})

/**
 * After one Scan: the page is over (`cursor` for the next one, `undefined` at the end of the table), or `undefined`
 * to scan on from `lastEvaluatedKey`.
 *
 * @since 1.0.0
 * @category paging
 */
export const scanPageEnd = (
  lastEvaluatedKey: ItemMap | undefined,
  found: number,
  limit: number
): { readonly cursor: string | undefined } | undefined => {
  if (lastEvaluatedKey === undefined) return { cursor: undefined }
  if (found >= limit) return { cursor: Cursor.encode(lastEvaluatedKey) }
  return undefined
}

/**
 * Where a Query of a family's locks and semaphores starts: after the sort key of the previous page's last item, from
 * the beginning, or why the cursor is malformed.
 *
 * @since 1.0.0
 * @category requests
 */
export const familyQueryStart = (
  layout: KeyLayout,
  sortKey: string,
  cursor: string | undefined
): Checked.Checked<ItemMap | undefined> => {
  if (cursor === undefined) return Checked.ok(undefined)
  if (cursor === "" || !Utf8.isWellFormed(cursor) || !Utf8.fits(cursor, Keys.sortKeyMaxBytes)) {
    return Checked.invalid(Cursor.malformedMessage(cursor, "it is not a sort key of this table", "table"))
  }
  return Checked.ok(queryStartKey(layout, sortKey, cursor))
}

/**
 * The filter of a Scan of a family's locks and semaphores: the family's lock keys and semaphore keys (none without a
 * prefix: any key may be the family's).
 *
 * @since 1.0.0
 * @category requests
 */
export const familyScanFilter = (layout: KeyLayout) => {
  const lockKeys = layout.keyPrefixOf("")
  return lockKeys === "" ? {} : {
    FilterExpression: "begins_with(#pk, :locks) OR begins_with(#pk, :semaphores)",
    ExpressionAttributeNames: { "#pk": layout.partitionKey },
    ExpressionAttributeValues: {
      ":locks": str(lockKeys),
      ":semaphores": str(SemaphoreKeys.marker + lockKeys)
    }
  }
}
