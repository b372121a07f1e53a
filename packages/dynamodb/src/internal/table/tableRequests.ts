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
import * as TableRequests from "@leasehold/core/dynamodb/TableRequests"
import { LockStoreError } from "@leasehold/lock/LockError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as EffectLine from "../effectLine.js"
import * as ClientInternal from "../transport/client.js"
import * as Transport from "../transport/transport.js"

const activePollInterval = Duration.millis(TableRequests.activePollIntervalMs)

/** The table operation a request belongs to, so that its errors say which helper failed. */
type TableOperation = "createTable" | "checkTable"

/** @internal */
export const errorName = (error: LockStoreError): string | undefined => TableRequests.errorName(error.cause)

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
    ...TableRequests.retryPlan,
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
            message: TableRequests.noDescriptionMessage(transport.tableName)
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
    Effect.timeoutOption(timeout),
    Effect.flatMap(Option.match({
      onNone: () =>
        Effect.fail(
          new LockStoreError({
            operation: "createTable",
            retryable: true,
            message: TableRequests.notActiveMessage(transport.tableName, Duration.format(timeout))
          })
        ),
      onSome: Effect.succeed
    })),
    // Polling is about real time even under a TestClock.
    EffectLine.withClock(Transport.liveClock)
  )
}

/**
 * Whether the server knows `UpdateTimeToLive`, asked without changing anything (the core's
 * `TableRequests.knowsUpdateTtl`): the request names a table that can not exist.
 *
 * @internal
 */
export const knowsUpdateTtl = (transport: Transport.Transport) =>
  updateTtl(transport, "checkTable", TableRequests.impossibleTableName).pipe(
    Effect.as(true),
    Effect.catchIf(
      (error) => !error.retryable,
      (error) => Effect.succeed(TableRequests.knowsUpdateTtl(errorName(error)))
    )
  )

/**
 * The transport of a helper that only reads a table: how it is keyed does not matter to its errors.
 *
 * @internal
 */
export const readerTransport = (options: Parameters<typeof makeTransport>[0]) =>
  makeTransport(options, KeySchema.describeExpected({ partitionKey: "key", sortKey: undefined }))
