/**
 * @deliveryhero/dynamodb-lock 2.0.0: `lock(group, id)` then `releaseLock(lock)`, with its lease prolonging on.
 */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb"
import { DynamoDBDocument } from "@aws-sdk/lib-dynamodb"
import { dynamoDBLockClientFactory } from "@deliveryhero/dynamodb-lock"
import { clientConfig, type Contender, tables, timedLoop } from "../Contender.js"
import type { ClientConfig } from "../Protocol.js"

export const leaseMs = 30_000

/** The library's client on `client`, on the bench's table. */
export const lockClient = (client: DynamoDBClient) =>
  dynamoDBLockClientFactory(DynamoDBDocument.from(client) as never, {
    tableName: tables.deliveryhero,
    partitionKey: "lockId",
    sortKey: "lockGroup"
  })

/** The bench's settings of a lock: its lease prolonged every lease / 3, as every contender's heartbeat. */
export const lockOptions = (lease: number = leaseMs) => ({
  leaseDurationInMs: lease,
  prolongLeaseEnabled: true,
  prolongEveryMs: lease / 3,
  trustLocalTime: true,
  maxRetryCount: 0
})

export const make = (config: ClientConfig): Contender => {
  const client = new DynamoDBClient(clientConfig(config))
  const locks = lockClient(client)
  const cycle = async (key: string) => {
    const lock = await locks.lock("bench", key, lockOptions())
    await locks.releaseLock(lock)
  }
  return {
    name: "@deliveryhero/dynamodb-lock",
    round: (key, durationMs) => timedLoop(durationMs, () => cycle(key)),
    close: async () => client.destroy()
  }
}
