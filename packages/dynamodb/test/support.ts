/**
 * Helpers for the DynamoDB store tests: unique tables and names, stores wired to the test server, server-side
 * request counts, and a raw client to look at items as they are stored.
 */
import { DynamoDBClient, GetItemCommand, PutItemCommand } from "@aws-sdk/client-dynamodb"
import type { AttributeValue } from "@aws-sdk/client-dynamodb"
import { DynamoLockStore, DynamoLockTable } from "@leasehold/dynamodb"
import type { LockStore } from "@leasehold/lock"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import { Effect, Option } from "effect"
import * as EffectLine from "../src/internal/effectLine.js"

let counter = 0

/** A name no other test uses: tables and locks of one run never collide, also against a shared endpoint. */
export const unique = (label: string): string =>
  `${label}-${Date.now().toString(36)}-${(counter++).toString(36)}-${Math.random().toString(36).slice(2, 6)}`

/** A fresh lock table on the test server. */
export const makeTable = (options: { readonly partitionKey?: string; readonly sortKey?: string } = {}) =>
  Effect.gen(function*() {
    const server = yield* DynamoServer.DynamoServer
    const tableName = unique("locks")
    const result = yield* DynamoLockTable.createTable({ tableName, clientConfig: server.clientConfig, ...options })
    return { tableName, result }
  })

/** A store on the test server; the clock-skew guard is off unless asked for (tests drive a TestClock). */
export const makeStore = (tableName: string, options: Partial<DynamoLockStore.Options> = {}) =>
  Effect.flatMap(
    DynamoServer.DynamoServer,
    (server) =>
      DynamoLockStore.make({ tableName, clientConfig: server.clientConfig, clockSkewGuard: false, ...options })
  )

/** A fresh table and a store on it. */
export const makeTableAndStore = (options: Partial<DynamoLockStore.Options> = {}) =>
  Effect.gen(function*() {
    const { tableName } = yield* makeTable({
      ...(options.partitionKey === undefined ? {} : { partitionKey: options.partitionKey }),
      ...(options.sortKey === undefined ? {} : { sortKey: options.sortKey })
    })
    const store = yield* makeStore(tableName, options)
    return { tableName, store }
  })

/** Server-side request counts by operation since the last `resetRequests`, as a plain object. */
export const requests = Effect.flatMap(
  DynamoServer.DynamoServer,
  (server) => Effect.map(server.requests, (counts) => Object.fromEntries(counts))
)

/** Runs `self` and returns its result with the requests the server saw while it ran. */
export const counted = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const server = yield* DynamoServer.DynamoServer
    yield* server.resetRequests
    const result = yield* self
    return { result, requests: yield* requests }
  })

/** A client of our own, to look at and plant items behind the store's back. */
export const rawClient = Effect.flatMap(DynamoServer.DynamoServer, (server) =>
  Effect.acquireRelease(
    Effect.sync(() => new DynamoDBClient({ ...server.clientConfig, maxAttempts: 1 })),
    (client) => Effect.sync(() => client.destroy())
  ))

export const getRaw = (tableName: string, key: Record<string, AttributeValue>) =>
  Effect.flatMap(
    rawClient,
    (client) =>
      Effect.promise(() => client.send(new GetItemCommand({ TableName: tableName, Key: key, ConsistentRead: true })))
  )

export const putRaw = (tableName: string, item: Record<string, AttributeValue>) =>
  Effect.flatMap(
    rawClient,
    (client) => Effect.promise(() => client.send(new PutItemCommand({ TableName: tableName, Item: item })))
  )

/** An acquire request with readable defaults. */
export const acquireRequest = (
  name: string,
  overrides: Partial<LockStore.AcquireRequest> = {}
): LockStore.AcquireRequest => ({
  name,
  owner: unique("owner"),
  holder: "worker-a",
  leaseMs: 10_000,
  data: undefined,
  takeover: { _tag: "Absolute", maxClockSkewMs: 10_000 },
  ...overrides
})

/** Real time, whatever the test's clock: for what waits on sockets, the server or the proxy. */
export const liveClock = EffectLine.liveClock

/** Runs `self` on the live clock. */
export const inRealTime = EffectLine.withClock(liveClock)

/** `self`, or `orElse` in its place (`self` interrupted) once it has run for `duration`. */
export const timeoutOrElse = <A2, E2, R2>(options: {
  readonly duration: EffectLine.DurationInput
  readonly orElse: () => Effect.Effect<A2, E2, R2>
}) =>
<A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A | A2, E | E2, R | R2> =>
  Effect.flatMap(
    Effect.timeoutOption(self, options.duration),
    (done): Effect.Effect<A | A2, E2, R2> => Option.isSome(done) ? Effect.succeed(done.value) : options.orElse()
  )

/** How `self` ended, as a plain value: its failure or its success (a defect still fails it). */
export const outcome = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.match(self, {
    onFailure: (failure) => ({ _tag: "Failure" as const, failure }),
    onSuccess: (success) => ({ _tag: "Success" as const, success })
  })

/**
 * Waits until the paused server holds no request: a client that aborts a held request closes its connection, and
 * the proxy lets go of the request when it sees the close.
 */
export const awaitNothingPending = Effect.flatMap(DynamoServer.DynamoServer, (server) =>
  Effect.gen(function*() {
    while ((yield* server.pending) > 0) yield* Effect.sleep("5 millis")
  }).pipe(
    timeoutOrElse({ duration: "5 seconds", orElse: () => Effect.fail(new Error("requests still held after 5 s")) }),
    inRealTime
  ))
