/**
 * dynamodb-lock-client 0.7.3 (FailOpen, with heartbeat). It was written for aws-sdk v2's `DocumentClient`; the adapter
 * below gives it the three methods it calls (`get`, `put`, `delete`, callback style) over v3's lib-dynamodb, with v3
 * errors given the v2 `code` the library branches on ("ConditionalCheckFailedException").
 */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb"
import {
  DeleteCommand,
  type DeleteCommandInput,
  DynamoDBDocumentClient,
  GetCommand,
  type GetCommandInput,
  PutCommand,
  type PutCommandInput
} from "@aws-sdk/lib-dynamodb"
import { createRequire } from "node:module"
import { clientConfig, type Contender, tables, timedLoop } from "../Contender.js"
import type { ClientConfig } from "../Protocol.js"

type Callback = (error: unknown, data?: unknown) => void

export interface LockClientLock {
  readonly release: (callback: (error?: unknown) => void) => void
  readonly on: (event: "error", listener: (error: unknown) => void) => void
}
export interface FailOpen {
  readonly acquireLock: (id: string, callback: (error: unknown, lock: LockClientLock) => void) => void
}
interface DynamodbLockClient {
  readonly FailOpen: new(config: Record<string, unknown>) => FailOpen
}

/** A v2 error carries `code`; v3 errors carry `name`. */
const toV2Error = (error: unknown): unknown => {
  if (error instanceof Error && (error as { code?: unknown }).code === undefined) {
    ;(error as { code?: unknown }).code = error.name
  }
  return error
}

/** The v2 `DocumentClient` surface dynamodb-lock-client uses, over v3's lib-dynamodb. */
export const v2DocumentClient = (document: DynamoDBDocumentClient) => {
  const settle = (promise: Promise<unknown>, callback: Callback) => {
    promise.then((data) => callback(null, data), (error) => callback(toV2Error(error)))
  }
  return {
    get: (params: GetCommandInput, callback: Callback) => settle(document.send(new GetCommand(params)), callback),
    put: (params: PutCommandInput, callback: Callback) => settle(document.send(new PutCommand(params)), callback),
    delete: (params: DeleteCommandInput, callback: Callback) =>
      settle(document.send(new DeleteCommand(params)), callback)
  }
}

export const library = createRequire(import.meta.url)("dynamodb-lock-client") as DynamodbLockClient

export const leaseMs = 30_000

/** The bench's settings of the library, on `client`: a heartbeat every lease / 3, as every contender's. */
export const failOpen = (client: DynamoDBClient, lease: number = leaseMs): FailOpen =>
  new library.FailOpen({
    dynamodb: v2DocumentClient(DynamoDBDocumentClient.from(client)),
    lockTable: tables.dynamodbLockClient,
    partitionKey: "id",
    leaseDurationMs: lease,
    heartbeatPeriodMs: lease / 3,
    // Its fastest honest setting: without it, every acquire of an existing (released) row sleeps for that row's lease.
    trustLocalTime: true,
    retryCount: 0
  })

export const make = (config: ClientConfig): Contender => {
  const client = new DynamoDBClient(clientConfig(config))
  const locks = failOpen(client)
  const cycle = (key: string) =>
    new Promise<void>((resolve, reject) => {
      locks.acquireLock(key, (error, lock) => {
        if (error) return reject(error)
        lock.on("error", () => {})
        lock.release((releaseError) => (releaseError ? reject(releaseError) : resolve()))
      })
    })
  return {
    name: "dynamodb-lock-client (FailOpen)",
    round: (key, durationMs) => timedLoop(durationMs, () => cycle(key)),
    close: async () => client.destroy()
  }
}
