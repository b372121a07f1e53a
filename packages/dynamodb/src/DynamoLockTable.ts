/**
 * The lock table: create it (on-demand billing, TTL on `ttl`) and check an existing one.
 *
 * @since 1.0.0
 */
import {
  CreateTableCommand,
  type CreateTableCommandOutput,
  type DynamoDBClient,
  type DynamoDBClientConfig
} from "@aws-sdk/client-dynamodb"
import * as KeySchema from "@leasehold/core/dynamodb/KeySchema"
import * as Table from "@leasehold/core/dynamodb/TableDescription"
import { type LockConfigError, LockStoreError } from "@leasehold/lock/LockError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { DurationInput } from "./internal/effectLine.js"
import * as TableRequests from "./internal/table/tableRequests.js"
import * as Validate from "./internal/table/validate.js"
import * as Transport from "./internal/transport/transport.js"

/**
 * The attribute that holds each item's expiry for DynamoDB TTL, in epoch seconds.
 *
 * @since 1.0.0
 * @category constants
 */
export const ttlAttribute: string = Table.ttlAttribute

/**
 * How long `createTable` waits for a new table to become ACTIVE: DynamoDB usually takes seconds, rarely a minute.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultActiveTimeout: DurationInput = "2 minutes"

/**
 * Where the table is and how it is keyed. The key options must match the store's (`DynamoLockStore.Options`).
 *
 * @since 1.0.0
 * @category models
 */
export interface TableOptions {
  readonly tableName: string
  /** A client the caller owns; never destroyed here. */
  readonly client?: DynamoDBClient | undefined
  /** Settings for a client built for this call and destroyed after it (when `client` is not given). */
  readonly clientConfig?: DynamoDBClientConfig | undefined
  /** The partition key attribute (default "key"). */
  readonly partitionKey?: string | undefined
  /** The sort key attribute, if the store runs in sort-key mode. */
  readonly sortKey?: string | undefined
}

/**
 * @since 1.0.0
 * @category models
 */
export interface CreateTableOptions extends TableOptions {
  /** How long to wait for the table to become ACTIVE (default `defaultActiveTimeout`). */
  readonly activeTimeout?: DurationInput | undefined
}

/**
 * Whether TTL cleanup of idle lock rows is on: `enabled` (on `ttl`, or being enabled), `unsupported` (the server has
 * no TTL API, e.g. dynalite: rows then stay until deleted by hand), `other-attribute` (the table already expires
 * items by another attribute, and DynamoDB allows one TTL attribute per table).
 *
 * @since 1.0.0
 * @category models
 */
export type TtlStatus = Table.TtlStatus

/**
 * @since 1.0.0
 * @category models
 */
export interface CreateTableResult {
  readonly tableName: string
  /** `false` when a table with the expected key schema was already there. */
  readonly created: boolean
  readonly ttl: TtlStatus
}

/**
 * Something wrong with a lock table, with a message a person can act on.
 *
 * @since 1.0.0
 * @category models
 */
export type TableProblem = Table.TableProblem

/** The key schema the options ask for, or the `LockConfigError` that says which option is wrong. */
const resolve = (options: TableOptions): Effect.Effect<KeySchema.Expected, LockConfigError> => {
  const notRecord = Validate.optionsRecord(options)
  if (notRecord !== undefined) return Effect.fail(notRecord)
  const expected = Validate.tableKeys(options)
  return "_tag" in expected ? Effect.fail(expected) : Effect.succeed(expected)
}

const makeTransport = (options: TableOptions, expected: KeySchema.Expected) =>
  TableRequests.makeTransport(options, KeySchema.describeExpected(expected))

/**
 * Creates the lock table with on-demand billing, waits until it is ACTIVE, and enables TTL on `ttl` where the server
 * supports it. Succeeds without change if a table with the expected key schema exists; fails with a
 * `LockStoreError` (operation "createTable") if the name is taken by a table with another key schema, and with a
 * `LockConfigError` naming the option, before any request, if an option is invalid.
 *
 * @since 1.0.0
 * @category constructors
 */
export const createTable = (
  options: CreateTableOptions
): Effect.Effect<CreateTableResult, LockStoreError | LockConfigError> =>
  Effect.gen(function*() {
    const expected = yield* resolve(options)
    const timeoutMs = Validate.duration("activeTimeout", options.activeTimeout ?? defaultActiveTimeout, false)
    if (typeof timeoutMs !== "number") return yield* Effect.fail(timeoutMs)
    const timeout = Duration.millis(timeoutMs)
    const transport = yield* makeTransport(options, expected)

    const created = yield* Transport.send<CreateTableCommandOutput>(
      transport,
      { operation: "createTable", action: "CreateTable" },
      (probe, abortSignal) =>
        transport.client.send(
          probe(
            new CreateTableCommand({
              TableName: options.tableName,
              BillingMode: "PAY_PER_REQUEST",
              ...KeySchema.definition(expected)
            })
          ),
          { abortSignal }
        )
    ).pipe(
      Effect.as(true),
      Effect.catchIf(
        (error) => TableRequests.errorName(error) === "ResourceInUseException",
        () => Effect.succeed(false)
      )
    )

    const table = yield* TableRequests.awaitActive(transport, timeout)
    const problem = Table.keySchemaProblem(table, expected)
    if (problem !== undefined) {
      return yield* Effect.fail(
        new LockStoreError({ operation: "createTable", retryable: false, message: problem.message })
      )
    }
    const ttl = yield* TableRequests.enableTtl(transport)
    return { tableName: options.tableName, created, ttl }
  }).pipe(Effect.scoped, Effect.withSpan("DynamoLockTable.createTable"))

/**
 * Looks at an existing lock table and lists what is wrong with it: missing, not ACTIVE, another key schema, TTL off
 * or on another attribute. An empty list means the store can use it. Fails with a `LockStoreError` of operation
 * "checkTable" only when DynamoDB can not be asked (network, credentials), and with a `LockConfigError` naming the
 * option, before any request, if an option is invalid.
 *
 * @since 1.0.0
 * @category constructors
 */
export const checkTable = (
  options: TableOptions
): Effect.Effect<ReadonlyArray<TableProblem>, LockStoreError | LockConfigError> =>
  Effect.gen(function*() {
    const expected = yield* resolve(options)
    const transport = yield* makeTransport(options, expected)
    const table = yield* TableRequests.describeIfAny(transport)
    if (table === undefined) return [Table.missing(options.tableName)]
    return Table.problems(options.tableName, table, expected, yield* TableRequests.describeTtl(transport, "checkTable"))
  }).pipe(Effect.scoped, Effect.withSpan("DynamoLockTable.checkTable"))

/**
 * Where a table is, for the helpers that only read it: its name and the client to ask.
 *
 * @since 1.0.0
 * @category models
 */
export type TableLocation = Pick<TableOptions, "tableName" | "client" | "clientConfig">

/**
 * How an existing table is keyed, as `describeKeys` finds it:
 *
 * - `Missing`: there is no such table.
 * - `Usable`: a lock store can use it with these `partitionKey` and `sortKey` options (a String partition key and,
 *   optionally, a String sort key, neither named like one of the items' own attributes).
 * - `Unusable`: no lock store can; `keySchema` says how it is keyed, e.g. `{id: N}`.
 *
 * @since 1.0.0
 * @category models
 */
export type TableKeys = Table.TableKeys

/**
 * Reads how an existing table is keyed, with one `DescribeTable`: for tools that work on whatever lock table they
 * are pointed at (the CLI), so that nobody has to repeat the key attributes the table already knows. Fails with a
 * `LockStoreError` of operation "checkTable" only when DynamoDB can not be asked, and with a `LockConfigError`
 * before any request if the table name is invalid.
 *
 * @since 1.0.0
 * @category constructors
 */
export const describeKeys = (options: TableLocation): Effect.Effect<TableKeys, LockStoreError | LockConfigError> =>
  Effect.gen(function*() {
    const invalid = Validate.optionsRecord(options) ?? Validate.tableName(options.tableName)
    if (invalid !== undefined) return yield* Effect.fail(invalid)
    const transport = yield* TableRequests.readerTransport(options)
    const table = yield* TableRequests.describeIfAny(transport)
    return table === undefined ? { _tag: "Missing" } satisfies TableKeys : Table.keysOf(table)
  }).pipe(Effect.scoped, Effect.withSpan("DynamoLockTable.describeKeys"))

/**
 * What `describeTtlState` finds: `TtlStatus`, or `disabled` when the server has TTL but the table does not use it.
 *
 * @since 1.0.0
 * @category models
 */
export type TtlState = TtlStatus | "disabled"

/**
 * Reads whether TTL cleanup of idle lock rows is on. Unlike `checkTable`, which counts TTL that is not on `ttl` as a
 * problem whatever the reason, it tells a server without TTL (`unsupported`: local emulators such as dynalite, where
 * nothing can turn it on) from a table whose TTL is off (`disabled`). One `DescribeTimeToLive`; when that says
 * TTL is off, one `UpdateTimeToLive` that can not apply (it names no table that can exist) to ask whether the server
 * has the operation at all. Fails with a `LockStoreError` of operation "checkTable" when DynamoDB can not be asked
 * or the table is missing, and with a `LockConfigError` before any request if the table name is invalid.
 *
 * @since 1.0.0
 * @category constructors
 */
export const describeTtlState = (options: TableLocation): Effect.Effect<TtlState, LockStoreError | LockConfigError> =>
  Effect.gen(function*() {
    const invalid = Validate.optionsRecord(options) ?? Validate.tableName(options.tableName)
    if (invalid !== undefined) return yield* Effect.fail(invalid)
    const transport = yield* TableRequests.readerTransport(options)
    const on = Table.ttlOn(yield* TableRequests.describeTtl(transport, "checkTable"))
    if (on !== undefined) return on
    return (yield* TableRequests.knowsUpdateTtl(transport))
      ? "disabled" satisfies TtlState
      : "unsupported" satisfies TtlState
  }).pipe(Effect.scoped, Effect.withSpan("DynamoLockTable.describeTtlState"))
