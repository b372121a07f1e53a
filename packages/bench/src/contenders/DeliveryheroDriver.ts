/**
 * @deliveryhero/dynamodb-lock in the contention and takeover tables. With trustLocalTime a waiter reads the lock every
 * `waitDurationInMs` and steals it once the holder's lease has passed by the local clock (a released lock is deleted,
 * so the next read finds none); without it, a waiter sleeps a whole lease after a read and steals the lock if its
 * version did not change. `maxRetryCount` unset waits forever.
 */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb"
import { DynamoDBDocument } from "@aws-sdk/lib-dynamodb"
import { dynamoDBLockClientFactory } from "@deliveryhero/dynamodb-lock"
import { clientConfig, tables } from "../Contender.js"
import { type Driver, timedContention } from "../ContentionDriver.js"
import type { ClientConfig } from "../Protocol.js"

/** The poll interval Leasehold defaults to (lease / 10), so that both poll alike. */
const pollMs = (leaseMs: number) => Math.round(leaseMs / 10)

const makeLocks = (config: ClientConfig) => {
  const client = new DynamoDBClient(clientConfig(config))
  const locks = dynamoDBLockClientFactory(DynamoDBDocument.from(client) as never, {
    tableName: tables.deliveryhero,
    partitionKey: "lockId",
    sortKey: "lockGroup"
  })
  return { client, locks }
}

const lockOptions = (leaseMs: number, trustLocalTime: boolean) => ({
  leaseDurationInMs: leaseMs,
  prolongLeaseEnabled: true,
  // It requires prolongEveryMs < lease / 2.
  prolongEveryMs: Math.round(leaseMs / 3),
  trustLocalTime,
  waitDurationInMs: pollMs(leaseMs)
})

export const driver: Driver = {
  name: "@deliveryhero/dynamodb-lock",
  contentionSettings: "trustLocalTime, waitDurationInMs lease / 10 (30 ms, it has no jitter), prolongEveryMs " +
    "lease / 3, maxRetryCount unset (unbounded)",
  leaseMs: (asked) => asked,
  takeoverModes: [
    {
      name: "trustLocalTime",
      settings: "reads every lease / 10, steals once the lease has passed",
      boundMs: (leaseMs) => leaseMs + pollMs(leaseMs)
    },
    {
      name: "leaseDuration",
      settings: "sleeps a whole lease after a read, steals if unchanged",
      boundMs: (leaseMs) => 2 * leaseMs
    }
  ],
  contend: async (config, options) => {
    const { client, locks } = makeLocks(config)
    try {
      return await timedContention(options, async () => {
        const lock = await locks.lock("bench", options.key, lockOptions(options.leaseMs, true))
        return () => locks.releaseLock(lock)
      })
    } finally {
      client.destroy()
    }
  },
  hold: async (config, { key, leaseMs, mode }, onHeld) => {
    const { locks } = makeLocks(config)
    await locks.lock("bench", key, lockOptions(leaseMs, mode === "trustLocalTime"))
    onHeld()
    await new Promise<never>(() => {})
  },
  takeOver: async (config, { key, leaseMs, mode }, onEntered) => {
    const { client, locks } = makeLocks(config)
    try {
      const lock = await locks.lock("bench", key, lockOptions(leaseMs, mode === "trustLocalTime"))
      onEntered()
      await locks.releaseLock(lock)
    } finally {
      client.destroy()
    }
  }
}
