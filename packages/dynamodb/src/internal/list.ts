/**
 * The operator's reads: `inspect` one lock, and `list` a family page by page, as a Query over its partition in
 * sort-key mode or a Scan of the table in partition-key-only mode, each resumed from a cursor.
 *
 * @internal
 */
import type { QueryCommandInput, ScanCommandInput } from "@aws-sdk/client-dynamodb"
import { LockStoreError } from "@leasehold/lock/LockError"
import type { LockRecord } from "@leasehold/lock/LockRecord"
import * as LockStore from "@leasehold/lock/LockStore"
import * as Utf8 from "@leasehold/lock/Utf8"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Cursor from "./cursor.js"
import * as Expressions from "./expressions.js"
import * as Item from "./item.js"
import * as StoreContext from "./storeContext.js"

type ItemMap = Expressions.ItemMap

/** What one page is read from: the server-side prefix, and which names it returns belong to the page. */
interface PageRequest {
  readonly prefix: string
  readonly matches: (name: string) => boolean
  readonly cursor: string | undefined
  readonly limit: number
}

/**
 * Sort-key mode: one Query over the family's partition, in sort key order, from the cursor (the last name of the
 * previous page) on. Asking for one record more than the page says whether a next page exists, so the last page has
 * no cursor (as in memory).
 */
const listByQuery = (context: StoreContext.StoreContext, sortKey: string, page: PageRequest) =>
  Effect.gen(function*() {
    const { layout } = context
    const { cursor, limit, matches, prefix } = page
    const records: Array<LockRecord> = []
    if (cursor !== undefined && layout.nameProblem(cursor) !== undefined) {
      return yield* Cursor.malformed(cursor, `it is not a lock name of this store`, "store")
    }
    // DynamoDB rejects a start key outside the key condition; a cursor outside the prefix means "from the start"
    // when it sorts before every match and "nothing left" when it sorts after them.
    const outside = cursor !== undefined && !cursor.startsWith(prefix)
    if (outside && cursor > prefix) return { records, cursor: undefined }
    let startKey: ItemMap | undefined = cursor === undefined || outside
      ? undefined
      : { [layout.partitionKey]: Expressions.str(layout.prefix), [sortKey]: Expressions.str(cursor) }
    const condition: Pick<
      QueryCommandInput,
      "KeyConditionExpression" | "ExpressionAttributeNames" | "ExpressionAttributeValues"
    > = prefix === ""
      ? {
        KeyConditionExpression: "#pk = :family",
        ExpressionAttributeNames: { "#pk": layout.partitionKey },
        ExpressionAttributeValues: { ":family": Expressions.str(layout.prefix) }
      }
      : {
        KeyConditionExpression: "#pk = :family AND begins_with(#sk, :prefix)",
        ExpressionAttributeNames: { "#pk": layout.partitionKey, "#sk": sortKey },
        ExpressionAttributeValues: { ":family": Expressions.str(layout.prefix), ":prefix": Expressions.str(prefix) }
      }
    while (true) {
      const response = yield* context.query({
        TableName: context.tableName,
        ...condition,
        ConsistentRead: true,
        Limit: Math.min(limit + 1 - records.length, Cursor.maxRequestLimit),
        ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey })
      })
      if (response._tag === "ConditionFailed") break
      for (const item of response.output.Items ?? []) {
        // A family's partition holds its semaphores too (sort key "#" + name): they are not locks.
        if (Item.isSemaphoreItem(item)) continue
        const record = yield* context.decode("list", item)
        if (matches(record.name)) records.push(record)
      }
      if (records.length > limit) {
        const page = records.slice(0, limit)
        return { records: page, cursor: page[page.length - 1]?.name }
      }
      startKey = response.output.LastEvaluatedKey
      if (startKey === undefined) break
    }
    return { records, cursor: undefined }
  })

/**
 * Partition-key-only mode: a paginated Scan in the table's own (hash) order, filtered on the key prefix, resumed
 * from the cursor (the last evaluated key, encoded). A Scan's `Limit` counts items examined before the filter, so
 * asking for the records still missing can never return more than the page holds, and every page ends exactly at
 * a `LastEvaluatedKey`: following cursors examines each item of the table once in all, never the table per page.
 * Sparse matches cost more Scans for one page; a large lock family belongs in sort-key mode, where listing is a
 * Query.
 */
const listByScan = (context: StoreContext.StoreContext, page: PageRequest) =>
  Effect.gen(function*() {
    const { layout } = context
    const { cursor, limit, matches, prefix } = page
    let startKey: ItemMap | undefined = undefined
    if (cursor !== undefined) {
      const decoded = Cursor.decode(cursor, layout.partitionKey)
      if (Either.isLeft(decoded)) return yield* Cursor.malformed(cursor, decoded.left, "store")
      startKey = decoded.right
    }
    const records: Array<LockRecord> = []
    const keyPrefix = layout.keyPrefixOf(prefix)
    while (true) {
      const input: ScanCommandInput = {
        TableName: context.tableName,
        ConsistentRead: true,
        Limit: Math.min(limit - records.length, Cursor.maxRequestLimit),
        ...(keyPrefix === "" ? {} : {
          FilterExpression: "begins_with(#pk, :prefix)",
          ExpressionAttributeNames: { "#pk": layout.partitionKey },
          ExpressionAttributeValues: { ":prefix": Expressions.str(keyPrefix) }
        }),
        ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey })
      }
      const response = yield* context.scan(input)
      // A Scan has no condition to fail.
      if (response._tag === "ConditionFailed") return { records, cursor: undefined }
      for (const item of response.output.Items ?? []) {
        // The filter can not tell every other family's key from ours (without a prefix, ours are the keys without
        // an unescaped "#"): an item of another family is skipped, not reported as malformed.
        const name = layout.nameOf(item)
        if (name !== undefined && matches(name)) records.push(yield* context.decode("list", item))
      }
      startKey = response.output.LastEvaluatedKey
      if (startKey === undefined) return { records, cursor: undefined }
      if (records.length >= limit) return { records, cursor: Cursor.encode(startKey) }
    }
  })

/** @internal */
export const make = (context: StoreContext.StoreContext): Pick<LockStore.LockStore, "inspect" | "list"> => {
  const { layout } = context

  const inspect = (name: string): Effect.Effect<Option.Option<LockRecord>, LockStoreError> =>
    context.keyed(
      "inspect",
      name,
      (key, clock) => Effect.map(context.getItem("inspect", key, clock), Option.fromNullable)
    ).pipe(Effect.withSpan("DynamoLockStore.inspect", StoreContext.operatorSpan(name)))

  const list = (request: LockStore.ListRequest): Effect.Effect<LockStore.ListPage, LockStoreError> => {
    const prefix = request.prefix ?? ""
    const limit = request.limit ?? LockStore.defaultListLimit
    const problem = LockStore.listLimitProblem(limit)
    if (problem !== undefined) {
      return Effect.fail(new LockStoreError({ operation: "list", retryable: false, message: problem }))
    }
    // DynamoDB compares UTF-8, where a lone surrogate becomes U+FFFD. Names are well-formed, so a prefix can match
    // one only when it ends in the first half of a character the name completes: the server is asked for what comes
    // before that half, and the names it returns are checked against the whole prefix.
    const serverPrefix = Utf8.isWellFormed(prefix) ? prefix : prefix.slice(0, -1)
    // No record can match a prefix longer than any name, or one that is not well-formed in any other way.
    if (
      !Utf8.fits(prefix, layout.maxNameBytes) || !Utf8.isWellFormed(serverPrefix) ||
      (serverPrefix !== prefix && !/[\uD800-\uDBFF]$/.test(prefix))
    ) {
      return Effect.succeed({ records: [], cursor: undefined })
    }
    const page: PageRequest = {
      prefix: serverPrefix,
      matches: serverPrefix === prefix ? (_: string) => true : (name: string) => name.startsWith(prefix),
      cursor: request.cursor,
      limit
    }
    return (layout.sortKey === undefined ? listByScan(context, page) : listByQuery(context, layout.sortKey, page))
      .pipe(Effect.withSpan("DynamoLockStore.list", { attributes: { "lock.prefix": prefix } }))
  }

  return { inspect, list }
}
