/**
 * The control-plane requests of the table helpers: describe a table and its TTL, turn TTL on, wait for a new table to
 * become ACTIVE, and ask a server whether it has TTL at all. What the answers mean is the core's `TableDescription`.
 *
 * @internal
 */
import {
  DescribeTableCommand,
  type DescribeTableCommandOutput,
  DescribeTimeToLiveCommand,
  type DynamoDBClient,
  type DynamoDBClientConfig,
  type TableDescription,
  UpdateTimeToLiveCommand
} from "@aws-sdk/client-dynamodb"
import * as KeySchema from "@leasehold/core/dynamodb/KeySchema"
import * as Table from "@leasehold/core/dynamodb/TableDescription"
import { LockStoreError } from "@leasehold/lock/LockError"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ClientInternal from "../transport/client.js"
import * as Transport from "../transport/transport.js"

/** Between two looks at a table that is still being created: frequent enough to return soon after it is ready. */
const activePollInterval = Duration.millis(250)

/** A table request is not urgent; a slow control plane gets longer than a lock request does. */
const tableRequestTimeoutMs = 10_000

/** The table operation a request belongs to, so that its errors say which helper failed. */
type TableOperation = "createTable" | "checkTable"

/** @internal */
export const errorName = (error: LockStoreError): string | undefined => {
  const cause = error.cause as { readonly name?: unknown } | undefined
  return typeof cause?.name === "string" ? cause.name : undefined
}

/** @internal */
export const isUnknownOperation = (error: LockStoreError) => Table.isUnknownOperation(errorName(error))

/** @internal */
export const makeTransport = (
  options: {
    readonly tableName: string
    readonly client?: DynamoDBClient | undefined
    readonly clientConfig?: DynamoDBClientConfig | undefined
  },
  expectedKeySchema: string
) =>
  Effect.map(ClientInternal.acquire(options), (client): Transport.Transport => ({
    client,
    tableName: options.tableName,
    expectedKeySchema,
    requestTimeoutMs: tableRequestTimeoutMs,
    maxRetries: 3,
    retryBaseDelayMs: 100,
    skew: undefined
  }))

/** @internal */
export const describeTable = (transport: Transport.Transport, operation: TableOperation) =>
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

/**
 * The table's description, or `undefined` for a table that does not exist.
 *
 * @internal
 */
export const describeIfAny = (transport: Transport.Transport) =>
  describeTable(transport, "checkTable").pipe(
    Effect.catchIf((error) => errorName(error) === "ResourceNotFoundException", () => Effect.succeed(undefined))
  )

/**
 * The TTL state of the table, `undefined` when the server has no TTL API.
 *
 * @internal
 */
export const describeTtl = (transport: Transport.Transport, operation: TableOperation) =>
  Transport.send(
    transport,
    { operation, action: "DescribeTimeToLive" },
    (probe, abortSignal) =>
      transport.client.send(probe(new DescribeTimeToLiveCommand({ TableName: transport.tableName })), { abortSignal })
  ).pipe(
    Effect.map((response) => response._tag === "Ok" ? response.output.TimeToLiveDescription : undefined),
    Effect.catchIf((error) => isUnknownOperation(error), () => Effect.succeed(undefined))
  )

const updateTtl = (transport: Transport.Transport, operation: TableOperation, tableName: string) =>
  Transport.send(
    transport,
    { operation, action: "UpdateTimeToLive" },
    (probe, abortSignal) =>
      transport.client.send(
        probe(
          new UpdateTimeToLiveCommand({
            TableName: tableName,
            TimeToLiveSpecification: { AttributeName: Table.ttlAttribute, Enabled: true }
          })
        ),
        { abortSignal }
      )
  )

/** @internal */
export const enableTtl = (transport: Transport.Transport): Effect.Effect<Table.TtlStatus, LockStoreError> =>
  Effect.gen(function*() {
    const on = Table.ttlOn(yield* describeTtl(transport, "createTable"))
    if (on !== undefined) return on
    return yield* updateTtl(transport, "createTable", transport.tableName).pipe(
      Effect.as<Table.TtlStatus>("enabled"),
      // dynalite answers UnknownOperationException: it keeps rows until deleted, which tests do not mind.
      Effect.catchIf(isUnknownOperation, () => Effect.succeed<Table.TtlStatus>("unsupported"))
    )
  })

/** @internal */
export const awaitActive = (transport: Transport.Transport, timeout: Duration.Duration) => {
  const poll: Effect.Effect<TableDescription, LockStoreError> = Effect.flatMap(
    describeTable(transport, "createTable"),
    (table) => Table.isActive(table) ? Effect.succeed(table) : Effect.andThen(Effect.sleep(activePollInterval), poll)
  )
  return poll.pipe(
    Effect.timeoutOrElse({
      duration: timeout,
      orElse: () =>
        Effect.fail(
          new LockStoreError({
            operation: "createTable",
            retryable: true,
            message: `table "${transport.tableName}" did not become ACTIVE within ${
              Duration.format(timeout)
            }: check it in the console or with DescribeTable, and run createTable again`
          })
        )
    }),
    // Polling is about real time even under a TestClock.
    Effect.provideService(Clock.Clock, Transport.liveClock)
  )
}

/**
 * A table name no table can have (DynamoDB's allow neither spaces nor ":"), for a TTL request that can not apply.
 */
const impossibleTableName = "leasehold: TTL support probe"

/**
 * Whether the server knows `UpdateTimeToLive`, asked without changing anything: the request names a table that can
 * not exist, so a server with TTL refuses it (as invalid, or as not allowed by a least-privilege policy) and only a
 * server without TTL answers that it has no such operation. dynalite, for one, describes every table's TTL as
 * DISABLED but has no way to turn it on.
 *
 * @internal
 */
export const knowsUpdateTtl = (transport: Transport.Transport) =>
  updateTtl(transport, "checkTable", impossibleTableName).pipe(
    Effect.as(true),
    Effect.catchIf((error) => !error.retryable, (error) => Effect.succeed(!isUnknownOperation(error)))
  )

/**
 * The transport of a helper that only reads a table: how it is keyed does not matter to its errors.
 *
 * @internal
 */
export const readerTransport = (options: Parameters<typeof makeTransport>[0]) =>
  makeTransport(options, KeySchema.describeExpected({ partitionKey: "key", sortKey: undefined }))
