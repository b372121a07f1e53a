/**
 * dynamodb-lock-client (FailOpen) in the contention and takeover tables. It has no poll interval: a waiter reads the
 * lock, sleeps for what is left of the holder's lease (trustLocalTime) or for a whole lease (without it), then puts
 * its own lock on condition that the holder's guid is unchanged; a failed put starts over with a read. Waiting
 * "forever" is `retryCount` large.
 */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb"
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb"
import { clientConfig, tables } from "../Contender.js"
import { type Driver, timedContention } from "../ContentionDriver.js"
import type { ClientConfig } from "../Protocol.js"
import { type FailOpen, library, type LockClientLock, v2DocumentClient } from "./DynamodbLockClient.js"

const makeLocks = (config: ClientConfig, leaseMs: number, trustLocalTime: boolean) => {
  const client = new DynamoDBClient(clientConfig(config))
  const locks = new library.FailOpen({
    dynamodb: v2DocumentClient(DynamoDBDocumentClient.from(client)),
    lockTable: tables.dynamodbLockClient,
    partitionKey: "id",
    leaseDurationMs: leaseMs,
    heartbeatPeriodMs: Math.round(leaseMs / 3),
    trustLocalTime,
    retryCount: Number.MAX_SAFE_INTEGER
  })
  return { client, locks }
}

const acquire = (locks: FailOpen, key: string) =>
  new Promise<LockClientLock>((resolve, reject) =>
    locks.acquireLock(key, (error, lock) => {
      if (error) return reject(error)
      // A failed heartbeat is reported here; the loop notices nothing (as a user who did not listen would not).
      lock.on("error", () => {})
      resolve(lock)
    })
  )

const release = (lock: LockClientLock) =>
  new Promise<void>((resolve, reject) => lock.release((error) => (error ? reject(error) : resolve())))

export const driver: Driver = {
  name: "dynamodb-lock-client (FailOpen)",
  contentionSettings: "trustLocalTime (sleeps for what is left of the holder's lease, not a whole lease), " +
    "heartbeat lease / 3, retryCount unbounded; it has no poll interval",
  leaseMs: (asked) => asked,
  takeoverModes: [
    {
      name: "trustLocalTime",
      settings: "sleeps until the holder's lease ends by its clock",
      boundMs: (leaseMs) => leaseMs
    },
    {
      name: "leaseDuration",
      settings: "sleeps a whole lease after each read",
      // A read just before a heartbeat, a lease of sleep, a failed put, a read, another lease.
      boundMs: (leaseMs) => 2 * leaseMs
    }
  ],
  contend: async (config, options) => {
    const { client, locks } = makeLocks(config, options.leaseMs, true)
    try {
      return await timedContention(options, async () => {
        const lock = await acquire(locks, options.key)
        return () => release(lock)
      })
    } finally {
      client.destroy()
    }
  },
  hold: async (config, { key, leaseMs, mode }, onHeld) => {
    const { locks } = makeLocks(config, leaseMs, mode === "trustLocalTime")
    await acquire(locks, key)
    onHeld()
    await new Promise<never>(() => {})
  },
  takeOver: async (config, { key, leaseMs, mode }, onEntered) => {
    const { client, locks } = makeLocks(config, leaseMs, mode === "trustLocalTime")
    try {
      const lock = await acquire(locks, key)
      onEntered()
      await release(lock)
    } finally {
      client.destroy()
    }
  }
}
