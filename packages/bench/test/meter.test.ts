import {
  CreateTableCommand,
  DeleteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand
} from "@aws-sdk/client-dynamodb"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import * as Meter from "../src/Meter.js"

const table = "meter-test"

/** A meter in front of a fresh dynalite, a client through it, and a table whose key is `id`. */
const withMeter = (f: (meter: Meter.Meter, client: DynamoDBClient) => Promise<void>) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const server = yield* DynamoServer.makeDynalite
    const meter = yield* Effect.acquireRelease(
      Effect.promise(() => Meter.start(server.serverEndpoint, server.clientConfig)),
      (meter) => Effect.promise(() => meter.close())
    )
    const client = new DynamoDBClient({ ...server.clientConfig, endpoint: meter.url, maxAttempts: 1 })
    yield* Effect.promise(() =>
      client.send(
        new CreateTableCommand({
          TableName: table,
          AttributeDefinitions: [{ AttributeName: "id", AttributeType: "S" }],
          KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
          BillingMode: "PAY_PER_REQUEST"
        })
      )
    )
    meter.reset()
    yield* Effect.promise(() => f(meter, client).finally(() => client.destroy()))
  })))

// An item of about `bytes` bytes: its key and one string attribute.
const item = (id: string, bytes: number) => ({ id: { S: id }, body: { S: "x".repeat(bytes - 4 - 2 - id.length) } })

describe("Meter", () => {
  it("prices writes by their item's size and reads by their answer and consistency", async () => {
    await withMeter(async (meter, client) => {
      // 1.5 KB: two write units, and one read unit (a half, eventually consistent).
      await client.send(new PutItemCommand({ TableName: table, Item: item("a", 1536) }))
      await client.send(new GetItemCommand({ TableName: table, Key: { id: { S: "a" } }, ConsistentRead: true }))
      await client.send(new GetItemCommand({ TableName: table, Key: { id: { S: "a" } } }))
      // A missing item still costs a read.
      await client.send(new GetItemCommand({ TableName: table, Key: { id: { S: "none" } }, ConsistentRead: true }))
      expect(meter.counts()).toEqual({ PutItem: 1, GetItem: 3 })
      expect(await meter.units()).toEqual({ write: 2, read: 1 + 0.5 + 1 })
    })
  })

  it("charges a conditional write whose condition fails, and a write whose item it only sees afterwards", async () => {
    await withMeter(async (meter, client) => {
      await client.send(new PutItemCommand({ TableName: table, Item: item("b", 3000) }))
      meter.reset()
      const failed = client.send(
        new PutItemCommand({
          TableName: table,
          Item: item("b", 100),
          ConditionExpression: "attribute_not_exists(id)"
        })
      )
      await expect(failed).rejects.toMatchObject({ name: "ConditionalCheckFailedException" })
      // An update that returns nothing, on an item of a size the meter has not seen it at yet.
      await client.send(
        new UpdateItemCommand({
          TableName: table,
          Key: { id: { S: "c" } },
          UpdateExpression: "SET body = :body",
          ExpressionAttributeValues: { ":body": { S: "y".repeat(2000) } }
        })
      )
      await client.send(new DeleteItemCommand({ TableName: table, Key: { id: { S: "missing" } } }))
      // The failed put is charged for the 3 KB item it left in place; the update for the 2 KB it wrote; the delete of
      // nothing the minimum.
      expect(await meter.units()).toEqual({ write: 3 + 2 + 1, read: 0 })
      meter.reset()
      expect(await meter.units()).toEqual({ write: 0, read: 0 })
    })
  })
})
