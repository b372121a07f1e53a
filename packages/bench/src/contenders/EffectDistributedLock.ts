/**
 * effect-distributed-lock 0.0.11 ships only a Redis backing. `DynamoBacking` below is the smallest honest DynamoDB
 * backing for it, written for this bench: one item per key, every operation one conditional `UpdateItem` (a
 * `GetItem` for `getCount`), mutex only (limit 1, 1 permit: a general multi-permit semaphore needs a holder map and
 * is not what this table compares). The semaphore is used as its README shows: `withPermits(1)(effect)`.
 */
import {
  type AttributeValue,
  DynamoDBClient,
  GetItemCommand,
  UpdateItemCommand,
  type UpdateItemCommandInput
} from "@aws-sdk/client-dynamodb"
import type * as Library from "effect-distributed-lock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { clientConfig, type Contender, tables } from "../Contender.js"
import type { ClientConfig } from "../Protocol.js"

export const leaseMs = 30_000

// The package's index also loads its Redis backing, which imports ioredis (an optional peer, not installed here), and
// its `exports` name only the index: load the two modules the DynamoDB backing needs by path.
const dist = new URL("../../../../node_modules/effect-distributed-lock/dist/", import.meta.url)
const { DistributedSemaphoreBacking, SemaphoreBackingError } = (await import(
  new URL("Backing.js", dist).href
)) as typeof Library.Backing
export const DistributedSemaphore = (await import(
  new URL("DistributedSemaphore.js", dist).href
)) as typeof Library.DistributedSemaphore

const names = { "#holder": "holder", "#expiresAt": "expiresAt" }

export const makeBacking = (client: DynamoDBClient, tableName: string): Library.Backing.DistributedSemaphoreBacking => {
  const key = (k: string): Record<string, AttributeValue> => ({ key: { S: k } })
  /** `true` when the write applied, `false` when its condition failed. */
  const conditional = (operation: string, input: Omit<UpdateItemCommandInput, "TableName">) =>
    Effect.tryPromise({
      try: (signal) =>
        client.send(new UpdateItemCommand({ ...input, TableName: tableName }), { abortSignal: signal }).then(
          () => true,
          (error: unknown) => {
            if (error instanceof Error && error.name === "ConditionalCheckFailedException") return false
            throw error
          }
        ),
      catch: (cause) => new SemaphoreBackingError({ operation, cause })
    })
  const mutexOnly = (limit: number, permits: number) =>
    limit === 1 && permits === 1
      ? Effect.void
      : Effect.dieMessage("this bench's DynamoDB backing implements the mutex case only (limit 1, 1 permit)")
  return {
    tryAcquire: (k, holderId, ttl, limit, permits) =>
      Effect.zipRight(
        mutexOnly(limit, permits),
        Effect.suspend(() => {
          const now = Date.now()
          return conditional("tryAcquire", {
            Key: key(k),
            UpdateExpression: "SET #holder = :holder, #expiresAt = :expiresAt",
            ConditionExpression: "attribute_not_exists(#holder) OR #expiresAt < :now OR #holder = :holder",
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: {
              ":holder": { S: holderId },
              ":expiresAt": { N: String(now + Duration.toMillis(ttl)) },
              ":now": { N: String(now) }
            }
          })
        })
      ),
    release: (k, holderId) =>
      Effect.map(
        conditional("release", {
          Key: key(k),
          UpdateExpression: "REMOVE #holder, #expiresAt",
          ConditionExpression: "#holder = :holder",
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ":holder": { S: holderId } }
        }),
        (released) => (released ? 1 : 0)
      ),
    refresh: (k, holderId, ttl, limit, permits) =>
      Effect.zipRight(
        mutexOnly(limit, permits),
        Effect.suspend(() =>
          conditional("refresh", {
            Key: key(k),
            UpdateExpression: "SET #expiresAt = :expiresAt",
            ConditionExpression: "#holder = :holder",
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: {
              ":holder": { S: holderId },
              ":expiresAt": { N: String(Date.now() + Duration.toMillis(ttl)) }
            }
          })
        )
      ),
    getCount: (k) =>
      Effect.tryPromise({
        try: (signal) =>
          client.send(new GetItemCommand({ TableName: tableName, Key: key(k), ConsistentRead: true }), {
            abortSignal: signal
          }),
        catch: (cause) => new SemaphoreBackingError({ operation: "getCount", cause })
      }).pipe(
        Effect.map(({ Item }) => Item?.holder !== undefined && Number(Item.expiresAt?.N ?? 0) > Date.now() ? 1 : 0)
      )
  }
}

export const layer = (client: DynamoDBClient, tableName: string) =>
  Layer.succeed(DistributedSemaphoreBacking, makeBacking(client, tableName))

export const make = (config: ClientConfig): Contender => {
  const client = new DynamoDBClient(clientConfig(config))
  const runtime = ManagedRuntime.make(layer(client, tables.effectDistributedLock))
  return {
    name: "effect-distributed-lock (bench's DynamoDB backing)",
    round: (key, durationMs) =>
      runtime.runPromise(Effect.gen(function*() {
        const mutex = yield* DistributedSemaphore.make(key, { limit: 1, ttl: Duration.millis(leaseMs) })
        const latencies: Array<number> = []
        const end = performance.now() + durationMs
        let now = performance.now()
        while (now < end) {
          const start = now
          yield* mutex.withPermits(1)(Effect.void)
          now = performance.now()
          latencies.push(now - start)
        }
        return latencies
      })),
    close: async () => {
      await runtime.dispose()
      client.destroy()
    }
  }
}
