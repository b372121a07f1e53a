/**
 * What every contender of the uncontended table provides: a timed loop of acquire + release cycles on one key.
 */
import { CreateTableCommand, DynamoDBClient, type DynamoDBClientConfig } from "@aws-sdk/client-dynamodb"
import type { ClientConfig } from "./Protocol.js"

export interface Contender {
  readonly name: string
  /** Runs acquire + release cycles on `key` until `durationMs` has passed; returns each cycle's latency in ms. */
  readonly round: (key: string, durationMs: number) => Promise<Array<number>>
  /**
   * The last round's CPU (ms) and duration (s), for a contender that runs its rounds in a process of its own: the
   * bench process's CPU is then not the client's, and the round's duration is measured where it ran.
   */
  readonly lastRound?: () => { readonly cpuMs: number; readonly seconds: number } | undefined
  readonly close: () => Promise<void>
}

/** Every contender's client: the same endpoint, and no SDK retries (Leasehold's store retries on its own). */
export const clientConfig = (config: ClientConfig): DynamoDBClientConfig => ({
  endpoint: config.endpoint,
  region: config.region,
  credentials: config.credentials,
  maxAttempts: 1
})

export const tables = {
  leasehold: "bench-leasehold",
  dynamodbLockClient: "bench-dynamodb-lock-client",
  deliveryhero: "bench-deliveryhero",
  effectDistributedLock: "bench-effect-distributed-lock"
} as const

/** Creates the tables every contender uses (dynalite and DynamoDB Local create tables at once or within a second). */
export const createTables = async (config: ClientConfig): Promise<void> => {
  const client = new DynamoDBClient(clientConfig(config))
  const hashOnly = (TableName: string, key: string) =>
    new CreateTableCommand({
      TableName,
      AttributeDefinitions: [{ AttributeName: key, AttributeType: "S" }],
      KeySchema: [{ AttributeName: key, KeyType: "HASH" }],
      BillingMode: "PAY_PER_REQUEST"
    })
  await client.send(hashOnly(tables.leasehold, "key"))
  await client.send(hashOnly(tables.dynamodbLockClient, "id"))
  await client.send(hashOnly(tables.effectDistributedLock, "key"))
  await client.send(
    new CreateTableCommand({
      TableName: tables.deliveryhero,
      AttributeDefinitions: [
        { AttributeName: "lockId", AttributeType: "S" },
        { AttributeName: "lockGroup", AttributeType: "S" }
      ],
      KeySchema: [{ AttributeName: "lockId", KeyType: "HASH" }, { AttributeName: "lockGroup", KeyType: "RANGE" }],
      BillingMode: "PAY_PER_REQUEST"
    })
  )
  // dynalite answers CREATING for a moment; wait until every table is ACTIVE.
  const { DescribeTableCommand } = await import("@aws-sdk/client-dynamodb")
  for (const name of Object.values(tables)) {
    for (let i = 0; i < 200; i++) {
      const described = await client.send(new DescribeTableCommand({ TableName: name }))
      if (described.Table?.TableStatus === "ACTIVE") break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  client.destroy()
}

/** Runs `cycle` until the deadline, timing each. */
export const timedLoop = async (durationMs: number, cycle: () => Promise<unknown>): Promise<Array<number>> => {
  const latencies: Array<number> = []
  const end = performance.now() + durationMs
  let now = performance.now()
  while (now < end) {
    const start = now
    await cycle()
    now = performance.now()
    latencies.push(now - start)
  }
  return latencies
}
