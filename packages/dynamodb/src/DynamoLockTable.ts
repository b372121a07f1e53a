/**
 * The lock table: create it (on-demand billing, TTL on `ttl`) and check an existing one.
 *
 * @since 0.1.0
 */
import {
  CreateTableCommand,
  type CreateTableCommandOutput,
  DescribeTableCommand,
  type DescribeTableCommandOutput,
  DescribeTimeToLiveCommand,
  type DynamoDBClient,
  type DynamoDBClientConfig,
  type TableDescription,
  UpdateTimeToLiveCommand
} from "@aws-sdk/client-dynamodb"
import { type LockConfigError, LockStoreError } from "@leasehold/lock/LockError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ClientInternal from "./internal/client.js"
import * as Item from "./internal/item.js"
import * as KeySchema from "./internal/keySchema.js"
import * as Transport from "./internal/transport.js"
import * as Validate from "./internal/validate.js"

/**
 * The attribute that holds each item's expiry for DynamoDB TTL, in epoch seconds.
 *
 * @since 0.1.0
 * @category constants
 */
export const ttlAttribute: string = Item.attributes.ttl

/**
 * How long `createTable` waits for a new table to become ACTIVE: DynamoDB usually takes seconds, rarely a minute.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultActiveTimeout: Duration.DurationInput = "2 minutes"

/** Between two looks at a table that is still being created: frequent enough to return soon after it is ready. */
const activePollInterval = Duration.millis(250)

/** A table request is not urgent; a slow control plane gets longer than a lock request does. */
const tableRequestTimeoutMs = 10_000

/**
 * Where the table is and how it is keyed. The key options must match the store's (`DynamoLockStore.Options`).
 *
 * @since 0.1.0
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
 * @since 0.1.0
 * @category models
 */
export interface CreateTableOptions extends TableOptions {
  /** How long to wait for the table to become ACTIVE (default `defaultActiveTimeout`). */
  readonly activeTimeout?: Duration.DurationInput | undefined
}

/**
 * Whether TTL cleanup of idle lock rows is on: `enabled` (on `ttl`, or being enabled), `unsupported` (the server has
 * no TTL API, e.g. dynalite: rows then stay until deleted by hand), `other-attribute` (the table already expires
 * items by another attribute, and DynamoDB allows one TTL attribute per table).
 *
 * @since 0.1.0
 * @category models
 */
export type TtlStatus = "enabled" | "unsupported" | "other-attribute"

/**
 * @since 0.1.0
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
 * @since 0.1.0
 * @category models
 */
export interface TableProblem {
  readonly _tag: "TableMissing" | "TableNotActive" | "KeySchemaMismatch" | "TtlDisabled" | "TtlOnOtherAttribute"
  readonly message: string
}

const errorName = (error: LockStoreError): string | undefined => {
  const cause = error.cause as { readonly name?: unknown } | undefined
  return typeof cause?.name === "string" ? cause.name : undefined
}

/** The key schema the options ask for, or the `LockConfigError` that says which option is wrong. */
const resolve = (options: TableOptions): Effect.Effect<KeySchema.Expected, LockConfigError> => {
  const partitionKey = options.partitionKey ?? "key"
  const invalid = Validate.tableName(options.tableName) ?? Validate.keyAttributes(partitionKey, options.sortKey)
  return invalid === undefined ? Effect.succeed({ partitionKey, sortKey: options.sortKey }) : Effect.fail(invalid)
}

const makeTransport = (options: TableOptions, expected: KeySchema.Expected) =>
  Effect.map(ClientInternal.acquire(options), (client): Transport.Transport => ({
    client,
    tableName: options.tableName,
    expectedKeySchema: KeySchema.describeExpected(expected),
    requestTimeoutMs: tableRequestTimeoutMs,
    maxRetries: 3,
    retryBaseDelayMs: 100,
    skew: undefined
  }))

/** The table operation a request belongs to, so that its errors say which helper failed. */
type TableOperation = "createTable" | "checkTable"

const describeTable = (transport: Transport.Transport, operation: TableOperation) =>
  Effect.flatMap(
    Transport.send<DescribeTableCommandOutput>(
      transport,
      { operation, action: "DescribeTable" },
      (probe, abortSignal) =>
        transport.client.send(probe(new DescribeTableCommand({ TableName: transport.tableName })), { abortSignal })
    ),
    (response) =>
      response._tag === "Ok" && response.output.Table !== undefined
        ? Effect.succeed(response.output.Table)
        : Effect.fail(
          new LockStoreError({
            operation,
            retryable: true,
            message: `DescribeTable on "${transport.tableName}" returned no table description`
          })
        )
  )

const keySchemaProblem = (table: TableDescription, expected: KeySchema.Expected): TableProblem | undefined =>
  KeySchema.matches(expected, table.KeySchema ?? [], table.AttributeDefinitions ?? [])
    ? undefined
    : {
      _tag: "KeySchemaMismatch",
      message:
        `table "${table.TableName}" has key schema ${
          KeySchema.describeActual(table.KeySchema ?? [], table.AttributeDefinitions ?? [])
        }, but the store expects ${KeySchema.describeExpected(expected)}: use another table, or set the store's ` +
        `partitionKey/sortKey to the table's key attributes`
    }

/** The TTL state of the table, `undefined` when the server has no TTL API. */
const describeTtl = (transport: Transport.Transport, operation: TableOperation) =>
  Transport.send(
    transport,
    { operation, action: "DescribeTimeToLive" },
    (probe, abortSignal) =>
      transport.client.send(probe(new DescribeTimeToLiveCommand({ TableName: transport.tableName })), { abortSignal })
  ).pipe(
    Effect.map((response) => response._tag === "Ok" ? response.output.TimeToLiveDescription : undefined),
    Effect.catchIf((error) => isUnknownOperation(error), () => Effect.succeed(undefined))
  )

const isUnknownOperation = (error: LockStoreError) => {
  const name = errorName(error)
  return name === "UnknownOperationException" || name === "UnknownOperation"
}

const enableTtl = (transport: Transport.Transport): Effect.Effect<TtlStatus, LockStoreError> =>
  Effect.gen(function*() {
    const current = yield* describeTtl(transport, "createTable")
    const status = current?.TimeToLiveStatus
    if (status === "ENABLED" || status === "ENABLING") {
      return current?.AttributeName === ttlAttribute ? "enabled" : "other-attribute"
    }
    return yield* Transport.send(
      transport,
      { operation: "createTable", action: "UpdateTimeToLive" },
      (probe, abortSignal) =>
        transport.client.send(
          probe(
            new UpdateTimeToLiveCommand({
              TableName: transport.tableName,
              TimeToLiveSpecification: { AttributeName: ttlAttribute, Enabled: true }
            })
          ),
          { abortSignal }
        )
    ).pipe(
      Effect.as<TtlStatus>("enabled"),
      // dynalite answers UnknownOperationException: it keeps rows until deleted, which tests do not mind.
      Effect.catchIf(isUnknownOperation, () => Effect.succeed<TtlStatus>("unsupported"))
    )
  })

const awaitActive = (transport: Transport.Transport, timeout: Duration.Duration) => {
  const poll: Effect.Effect<TableDescription, LockStoreError> = Effect.flatMap(
    describeTable(transport, "createTable"),
    (table) =>
      table.TableStatus === "ACTIVE" || table.TableStatus === undefined
        ? Effect.succeed(table)
        : Effect.zipRight(Effect.sleep(activePollInterval), poll)
  )
  return poll.pipe(
    Effect.timeoutFail({
      duration: timeout,
      onTimeout: () =>
        new LockStoreError({
          operation: "createTable",
          retryable: true,
          message: `table "${transport.tableName}" did not become ACTIVE within ${
            Duration.format(timeout)
          }: check it in the console or with DescribeTable, and run createTable again`
        })
    }),
    // Polling is about real time even under a TestClock.
    Effect.withClock(Transport.liveClock)
  )
}

/**
 * Creates the lock table with on-demand billing, waits until it is ACTIVE, and enables TTL on `ttl` where the server
 * supports it. Succeeds without change if a table with the expected key schema exists; fails with a
 * `LockStoreError` (operation "createTable") if the name is taken by a table with another key schema, and with a
 * `LockConfigError` naming the option, before any request, if an option is invalid.
 *
 * @since 0.1.0
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
      Effect.catchIf((error) => errorName(error) === "ResourceInUseException", () => Effect.succeed(false))
    )

    const table = yield* awaitActive(transport, timeout)
    const problem = keySchemaProblem(table, expected)
    if (problem !== undefined) {
      return yield* Effect.fail(
        new LockStoreError({ operation: "createTable", retryable: false, message: problem.message })
      )
    }
    const ttl = yield* enableTtl(transport)
    return { tableName: options.tableName, created, ttl }
  }).pipe(Effect.scoped, Effect.withSpan("DynamoLockTable.createTable"))

/**
 * Looks at an existing lock table and lists what is wrong with it: missing, not ACTIVE, another key schema, TTL off
 * or on another attribute. An empty list means the store can use it. Fails with a `LockStoreError` of operation
 * "checkTable" only when DynamoDB can not be asked (network, credentials), and with a `LockConfigError` naming the
 * option, before any request, if an option is invalid.
 *
 * @since 0.1.0
 * @category constructors
 */
export const checkTable = (
  options: TableOptions
): Effect.Effect<ReadonlyArray<TableProblem>, LockStoreError | LockConfigError> =>
  Effect.gen(function*() {
    const expected = yield* resolve(options)
    const transport = yield* makeTransport(options, expected)
    const table = yield* describeTable(transport, "checkTable").pipe(
      Effect.catchIf((error) => errorName(error) === "ResourceNotFoundException", () => Effect.succeed(undefined))
    )
    if (table === undefined) {
      return [{
        _tag: "TableMissing",
        message: `table "${options.tableName}" does not exist: create it with DynamoLockStore.createTable(...) or ` +
          `\`leasehold table create --table ${options.tableName}\``
      }] satisfies ReadonlyArray<TableProblem>
    }
    const problems: Array<TableProblem> = []
    if (table.TableStatus !== undefined && table.TableStatus !== "ACTIVE") {
      problems.push({
        _tag: "TableNotActive",
        message: `table "${options.tableName}" is ${table.TableStatus}, not ACTIVE: wait, or look at it in the console`
      })
    }
    const schema = keySchemaProblem(table, expected)
    if (schema !== undefined) problems.push(schema)
    const ttl = yield* describeTtl(transport, "checkTable")
    const status = ttl?.TimeToLiveStatus
    if (status === "ENABLED" || status === "ENABLING") {
      if (ttl?.AttributeName !== ttlAttribute) {
        problems.push({
          _tag: "TtlOnOtherAttribute",
          message: `table "${options.tableName}" expires items by "${ttl?.AttributeName}", not "${ttlAttribute}": ` +
            `idle lock rows will never be removed; use a table of its own for locks`
        })
      }
    } else {
      problems.push({
        _tag: "TtlDisabled",
        message: `TTL is off on table "${options.tableName}": idle lock rows are never removed; enable it on ` +
          `attribute "${ttlAttribute}" (createTable does; dynalite and other local servers may not support TTL)`
      })
    }
    return problems
  }).pipe(Effect.scoped, Effect.withSpan("DynamoLockTable.checkTable"))

/**
 * Where a table is, for the helpers that only read it: its name and the client to ask.
 *
 * @since 0.2.0
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
 * @since 0.2.0
 * @category models
 */
export type TableKeys =
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Usable"; readonly partitionKey: string; readonly sortKey: string | undefined }
  | { readonly _tag: "Unusable"; readonly keySchema: string }

/**
 * Reads how an existing table is keyed, with one `DescribeTable`: for tools that work on whatever lock table they
 * are pointed at (the CLI), so that nobody has to repeat the key attributes the table already knows. Fails with a
 * `LockStoreError` of operation "checkTable" only when DynamoDB can not be asked, and with a `LockConfigError`
 * before any request if the table name is invalid.
 *
 * @since 0.2.0
 * @category constructors
 */
export const describeKeys = (options: TableLocation): Effect.Effect<TableKeys, LockStoreError | LockConfigError> =>
  Effect.gen(function*() {
    const invalid = Validate.tableName(options.tableName)
    if (invalid !== undefined) return yield* Effect.fail(invalid)
    const transport = yield* makeTransport(options, { partitionKey: "key", sortKey: undefined })
    const table = yield* describeTable(transport, "checkTable").pipe(
      Effect.catchIf((error) => errorName(error) === "ResourceNotFoundException", () => Effect.succeed(undefined))
    )
    if (table === undefined) return { _tag: "Missing" } satisfies TableKeys
    const keySchema = table.KeySchema ?? []
    const definitions = table.AttributeDefinitions ?? []
    const partitionKey = keySchema.find((element) => element.KeyType === "HASH")?.AttributeName
    const sortKey = keySchema.find((element) => element.KeyType === "RANGE")?.AttributeName
    const usable = partitionKey !== undefined && Validate.keyAttributes(partitionKey, sortKey) === undefined &&
      KeySchema.matches({ partitionKey, sortKey }, keySchema, definitions)
    return usable
      ? { _tag: "Usable", partitionKey, sortKey } satisfies TableKeys
      : { _tag: "Unusable", keySchema: KeySchema.describeActual(keySchema, definitions) } satisfies TableKeys
  }).pipe(Effect.scoped, Effect.withSpan("DynamoLockTable.describeKeys"))

/**
 * What `describeTtlState` finds: `TtlStatus`, or `disabled` when the server has TTL but the table does not use it.
 *
 * @since 0.2.0
 * @category models
 */
export type TtlState = TtlStatus | "disabled"

/**
 * A table name no table can have (DynamoDB's allow neither spaces nor ":"), for a TTL request that can not apply.
 */
const impossibleTableName = "leasehold: TTL support probe"

/**
 * Whether the server knows `UpdateTimeToLive`, asked without changing anything: the request names a table that can
 * not exist, so a server with TTL refuses it (as invalid, or as not allowed by a least-privilege policy) and only a
 * server without TTL answers that it has no such operation. dynalite, for one, describes every table's TTL as
 * DISABLED but has no way to turn it on.
 */
const knowsUpdateTtl = (transport: Transport.Transport) =>
  Transport.send(
    transport,
    { operation: "checkTable", action: "UpdateTimeToLive" },
    (probe, abortSignal) =>
      transport.client.send(
        probe(
          new UpdateTimeToLiveCommand({
            TableName: impossibleTableName,
            TimeToLiveSpecification: { AttributeName: ttlAttribute, Enabled: true }
          })
        ),
        { abortSignal }
      )
  ).pipe(
    Effect.as(true),
    Effect.catchIf((error) => !error.retryable, (error) => Effect.succeed(!isUnknownOperation(error)))
  )

/**
 * Reads whether TTL cleanup of idle lock rows is on. Unlike `checkTable`, which counts TTL that is not on `ttl` as a
 * problem whatever the reason, it tells a server without TTL (`unsupported`: local emulators such as dynalite, where
 * nothing can turn it on) from a table whose TTL is off (`disabled`). One `DescribeTimeToLive`; when that says
 * TTL is off, one `UpdateTimeToLive` that can not apply (it names no table that can exist) to ask whether the server
 * has the operation at all. Fails with a `LockStoreError` of operation "checkTable" when DynamoDB can not be asked
 * or the table is missing, and with a `LockConfigError` before any request if the table name is invalid.
 *
 * @since 0.2.0
 * @category constructors
 */
export const describeTtlState = (options: TableLocation): Effect.Effect<TtlState, LockStoreError | LockConfigError> =>
  Effect.gen(function*() {
    const invalid = Validate.tableName(options.tableName)
    if (invalid !== undefined) return yield* Effect.fail(invalid)
    const transport = yield* makeTransport(options, { partitionKey: "key", sortKey: undefined })
    const ttl = yield* describeTtl(transport, "checkTable")
    const status = ttl?.TimeToLiveStatus
    if (status === "ENABLED" || status === "ENABLING") {
      return ttl?.AttributeName === ttlAttribute ? "enabled" satisfies TtlState : "other-attribute" satisfies TtlState
    }
    return (yield* knowsUpdateTtl(transport)) ? "disabled" satisfies TtlState : "unsupported" satisfies TtlState
  }).pipe(Effect.scoped, Effect.withSpan("DynamoLockTable.describeTtlState"))
