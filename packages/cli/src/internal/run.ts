/**
 * What every command does around its work: resolve the connection, open the table, build the store, turn store
 * errors into operator messages.
 *
 * @internal
 */
import type * as DynamoLockItems from "@leasehold/dynamodb/DynamoLockItems"
import type { LockConfigError, LockStoreError } from "@leasehold/lock/LockError"
import * as LockStore from "@leasehold/lock/LockStore"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as CliError from "../CliError.js"
import * as Connection from "../Connection.js"
import * as LoadDynamo from "./loadDynamo.js"

/** Whether the SDK found no credentials anywhere in its default chain (the store's message is for code: not here). */
const noCredentials = (error: LockStoreError): boolean =>
  typeof error.cause === "object" && error.cause !== null &&
  (error.cause as { readonly name?: unknown }).name === "CredentialsProviderError"

/** What the SDK said, without the store's advice to code. */
const sdkMessage = (error: LockStoreError): string =>
  typeof error.cause === "object" && error.cause !== null && "message" in error.cause
    ? String(error.cause.message)
    : error.message

/**
 * A store error as an operator message. The store's own messages name options of code (`clientConfig`); where one
 * does, the CLI says what its user can do instead.
 *
 * @internal
 */
export const storeError = (error: LockStoreError): CliError.CliError =>
  // The SDK only finds out at the first request that it has no region; that is a usage error, not a store problem.
  /Region is missing/.test(error.message)
    ? CliError.usage("no region: pass --region REGION, set AWS_REGION, or set a region in your AWS profile")
    : noCredentials(error)
    ? CliError.usage(
      `no AWS credentials found (${sdkMessage(error)}): set AWS_PROFILE to a profile of ~/.aws/config (run ` +
        "`aws sso login --profile NAME` first for an SSO profile), or set AWS_ACCESS_KEY_ID and " +
        "AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary keys); for DynamoDB Local or dynalite, pass " +
        "--endpoint http://127.0.0.1:PORT with neither AWS_PROFILE nor AWS_ACCESS_KEY_ID set (the CLI then signs " +
        "with dummy keys), or try --local"
    )
    : CliError.store(error.message)

/** Store errors and option errors of the table helpers, as operator messages. */
export const tableError = (error: LockStoreError | LockConfigError): CliError.CliError =>
  error._tag === "LockConfigError" ? CliError.invalidOption(error) : storeError(error)

/** @internal */
export const withConnection = <A, E, R>(
  flags: Connection.Flags,
  f: (connection: Connection.Connection) => Effect.Effect<A, E, R>,
  options: { readonly createLocalTable?: boolean | undefined } = {}
): Effect.Effect<A, E | CliError.CliError, Exclude<R, Scope.Scope>> =>
  Effect.scoped(Effect.flatMap(Connection.resolve(flags, options), f))

/**
 * Opens an existing table: one client for the command, and the key attributes the table says it has. A missing
 * table, or one no lock store can use, is reported here, before any lock is read.
 *
 * @internal
 */
export const openTable = (
  connection: Connection.Connection
): Effect.Effect<Connection.Table, CliError.CliError, Scope.Scope> =>
  Effect.gen(function*() {
    const client = yield* Connection.makeClient(connection)
    const dynamo = yield* LoadDynamo.load
    const keys = yield* dynamo.DynamoLockTable.describeKeys({ tableName: connection.tableName, client }).pipe(
      Effect.mapError(tableError)
    )
    switch (keys._tag) {
      case "Missing":
        return yield* CliError.store(
          `table "${connection.tableName}" not found at ${connection.location}: create it with ` +
            `\`leasehold table create --table ${connection.tableName}\` (or fix --table, --region or --endpoint)`
        )
      case "Unusable":
        return yield* CliError.store(
          `table "${connection.tableName}" at ${connection.location} has key schema ${keys.keySchema}, which is not ` +
            `a lock table's (a String partition key and, optionally, a String sort key): check --table`
        )
      case "Usable":
        return { ...connection, client, partitionKey: keys.partitionKey, sortKey: keys.sortKey }
    }
  })

/** A store error anywhere in `self`, as an operator message. */
const reportStoreErrors = <A, E, R>(
  self: Effect.Effect<A, E | LockStoreError, R>
): Effect.Effect<A, E | CliError.CliError, R> =>
  self.pipe(
    Effect.catchIf(
      (error): error is LockStoreError =>
        typeof error === "object" && error !== null && (error as { _tag?: unknown })._tag === "LockStoreError",
      (error) => Effect.fail(storeError(error))
    )
  ) as Effect.Effect<A, E | CliError.CliError, R>

/**
 * Runs `f` on the opened table, for commands that read it without the store (`list`, `watch`).
 *
 * @internal
 */
export const withTable = <A, E, R>(
  flags: Connection.Flags,
  f: (table: Connection.Table) => Effect.Effect<A, E | LockStoreError, R>
): Effect.Effect<A, E | CliError.CliError, Exclude<R, Scope.Scope>> =>
  withConnection(flags, (connection) => reportStoreErrors(Effect.flatMap(openTable(connection), f)))

/**
 * Runs `f` with the live store on the opened table.
 *
 * @internal
 */
export const withStore = <A, E, R>(
  flags: Connection.Flags,
  f: (store: LockStore.LockStore, table: Connection.Table) => Effect.Effect<A, E | LockStoreError, R>
): Effect.Effect<A, E | CliError.CliError, Exclude<R, Scope.Scope>> =>
  withTable(flags, (table) => Effect.flatMap(Connection.makeStore(table), (store) => f(store, table)))

/** @internal */
export type Items = ReadonlyArray<DynamoLockItems.Item>

/**
 * A family's locks and semaphores from `cursor` on, page by page, until `limit` items or the end; returns where to
 * resume. A cursor the table can not read was mistyped or comes from another table: a usage error.
 *
 * @internal
 */
export const readItems = (
  table: Connection.Table,
  options: { readonly limit?: number | undefined; readonly cursor?: string | undefined } = {}
): Effect.Effect<
  { readonly items: Items; readonly cursor: string | undefined },
  CliError.CliError
> =>
  Effect.gen(function*() {
    const dynamo = yield* LoadDynamo.load
    const items: Array<DynamoLockItems.Item> = []
    let cursor = options.cursor
    do {
      const want = options.limit === undefined
        ? LockStore.defaultListLimit
        : Math.min(LockStore.defaultListLimit, options.limit - items.length)
      if (want <= 0) break
      const page = yield* dynamo.DynamoLockItems.list({
        tableName: table.tableName,
        client: table.client,
        partitionKey: table.partitionKey,
        sortKey: table.sortKey,
        prefix: table.prefix,
        cursor,
        limit: want
      }).pipe(
        Effect.mapError((error) =>
          error._tag === "LockStoreError" && cursor !== undefined && cursor === options.cursor && !error.retryable &&
            /cursor/.test(error.message)
            ? CliError.usage(`--cursor: ${error.message}`)
            : tableError(error)
        )
      )
      items.push(...page.items)
      cursor = page.cursor
    } while (cursor !== undefined)
    return { items, cursor }
  })
