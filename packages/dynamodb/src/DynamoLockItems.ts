/**
 * What a lock table holds, as an operator sees it: one family's locks and semaphores together, page by page. The
 * store's `list` returns locks only; a tool that shows the table (the CLI's `list` and `watch`) needs both, read in
 * one pass: one `Query` per page in sort-key mode (the family's partition), one paginated `Scan` otherwise.
 *
 * @since 1.0.0
 */
import * as Keys from "@leasehold/core/dynamodb/Keys"
import * as KeySchema from "@leasehold/core/dynamodb/KeySchema"
import * as StoreOptions from "@leasehold/core/dynamodb/StoreOptions"
import type { LockConfigError, LockStoreError } from "@leasehold/lock/LockError"
import type { LockRecord } from "@leasehold/lock/LockRecord"
import * as LockStore from "@leasehold/lock/LockStore"
import type { SemaphoreRecord } from "@leasehold/lock/SemaphoreRecord"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as DynamoLockStore from "./DynamoLockStore.js"
import type * as DynamoLockTable from "./DynamoLockTable.js"
import * as TableItems from "./internal/listing/tableItems.js"
import * as StoreContext from "./internal/store/storeContext.js"
import * as Validate from "./internal/table/validate.js"
import * as ClientInternal from "./internal/transport/client.js"

/**
 * Which family to list and from where: the table and key options as the stores that use it have them (`prefix`
 * included, with the same default), a `cursor` from an earlier page, and a page size.
 *
 * @since 1.0.0
 * @category models
 */
export interface ListOptions extends DynamoLockTable.TableOptions {
  /** The family, as the stores' `prefix` option (default: none; with `sortKey`, `DynamoLockStore.defaultFamily`). */
  readonly prefix?: string | undefined
  /** Where an earlier page ended: its `cursor`, exactly as returned. */
  readonly cursor?: string | undefined
  /** At most this many items (a whole number of at least 1, or `Infinity`); default `LockStore.defaultListLimit`. */
  readonly limit?: number | undefined
}

/**
 * One item of a family: a lock's record or a semaphore's. A lock and a semaphore of the same name are two items.
 *
 * @since 1.0.0
 * @category models
 */
export type Item =
  | { readonly _tag: "Lock"; readonly record: LockRecord }
  | { readonly _tag: "Semaphore"; readonly record: SemaphoreRecord }

/**
 * A page of items, in the table's order (sort key order in sort-key mode, the Scan's hash order otherwise), and
 * where the next page starts (`undefined` after the last).
 *
 * @since 1.0.0
 * @category models
 */
export interface Page {
  readonly items: ReadonlyArray<Item>
  readonly cursor: string | undefined
}

/**
 * Lists one page of a family's locks and semaphores. Items of other families are left out; an item of the family
 * that Leasehold did not write fails the page with a `LockStoreError` naming it. Invalid options fail with a
 * `LockConfigError` naming the option, before any request; a cursor that no page returned, with a non-retryable
 * `LockStoreError` that says it is malformed.
 *
 * @since 1.0.0
 * @category constructors
 */
export const list = (options: ListOptions): Effect.Effect<Page, LockStoreError | LockConfigError> =>
  Effect.gen(function*() {
    const notRecord = Validate.optionsRecord(options)
    if (notRecord !== undefined) return yield* Effect.fail(notRecord)
    const keys = Validate.tableKeys(options)
    if ("_tag" in keys) return yield* Effect.fail(keys)
    const { partitionKey, sortKey } = keys
    const prefix = Validate.prefix(StoreOptions.prefixOrDefault(options.prefix, sortKey), sortKey)
    if (typeof prefix !== "string") return yield* Effect.fail(prefix)
    const limit = options.limit ?? LockStore.defaultListLimit
    const limitProblem = LockStore.listLimitProblem(limit)
    if (limitProblem !== undefined) return yield* Effect.fail(Validate.config("limit", limitProblem))

    const client = yield* ClientInternal.acquire(options)
    const context = StoreContext.make({
      transport: {
        client,
        tableName: options.tableName,
        expectedKeySchema: KeySchema.describeExpected({ partitionKey, sortKey }),
        requestTimeoutMs: Duration.toMillis(DynamoLockStore.defaultRequestTimeout),
        maxRetries: DynamoLockStore.defaultMaxRetries,
        retryBaseDelayMs: Duration.toMillis(DynamoLockStore.defaultRetryBaseDelay),
        skew: undefined
      },
      layout: Keys.make({ partitionKey, sortKey, prefix }),
      tableName: options.tableName,
      // Reads write no `ttl`.
      ttlRetentionMs: Duration.toMillis(DynamoLockStore.defaultTtlRetention),
      skew: undefined
    })
    return yield* TableItems.list(context, options.cursor, limit)
  }).pipe(Effect.scoped, Effect.withSpan("DynamoLockItems.list"))
