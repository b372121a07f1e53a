// The floor a cold start is measured against: the same effect and AWS SDK as the lock's program, and the first
// conditional write sent by hand from an Effect program; it prints when the write is answered and ends the process.
import { DynamoDBClient, UpdateItemCommand } from "@aws-sdk/client-dynamodb"
import { Effect } from "effect"

// The static imports above are evaluated before this line runs.
const imported = performance.now()

const program = Effect.gen(function*() {
  const client = new DynamoDBClient({
    endpoint: process.env.COLD_START_ENDPOINT,
    region: "us-east-1",
    credentials: { accessKeyId: "cold-start", secretAccessKey: "cold-start" }
  })
  yield* Effect.tryPromise(() =>
    client.send(
      new UpdateItemCommand({
        TableName: process.env.COLD_START_TABLE,
        Key: { key: { S: process.env.COLD_START_NAME } },
        UpdateExpression: "SET #owner = :owner",
        ConditionExpression: "attribute_not_exists(#key)",
        ExpressionAttributeNames: { "#key": "key", "#owner": "owner" },
        ExpressionAttributeValues: { ":owner": { S: "cold-start" } }
      })
    )
  )
  const done = performance.now()
  process.stdout.write(JSON.stringify({ imported, done }) + "\n")
  process.exit(0)
})

Effect.runPromise(program)
