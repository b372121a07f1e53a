/**
 * An AWS Lambda handler that serialises work per order across concurrent invocations: two invocations for the same
 * order (a retry, a duplicate delivery) never run the critical section at the same time, and the fencing token
 * makes the downstream write conditional, so an invocation that froze past its lease (Lambda freezes execution
 * environments between invocations) can not overwrite a newer one.
 *
 * The Effect runtime (and with it the DynamoDB client) is built once per execution environment, outside the
 * handler, and reused by every invocation it serves.
 *
 * Run as a script, the file plays Lambda locally: it invokes the handler concurrently with sample events (several
 * for one order) and prints what each returned (see the end of the file).
 *
 *   LEASEHOLD_TABLE=leasehold-locks DYNAMODB_ENDPOINT=http://127.0.0.1:8000 AWS_REGION=us-east-1 \
 *     AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local node --import tsx examples/lambdaHandler.ts
 *
 * against a local server with the lock table (README, "Examples", shows how to start one).
 */
import {
  CreateTableCommand,
  DynamoDBClient,
  GetItemCommand,
  ResourceInUseException,
  UpdateItemCommand,
  waitUntilTableExists
} from "@aws-sdk/client-dynamodb"
import { DynamoLockStore } from "@leasehold/dynamodb"
import { Lock } from "@leasehold/lock"
import { Effect, Layer, ManagedRuntime } from "effect"
import { pathToFileURL } from "node:url"

/** The part of Lambda's context this handler uses (the full types live in the `@types/aws-lambda` package). */
interface LambdaContext {
  readonly awsRequestId: string
  readonly getRemainingTimeInMillis: () => number
}

/** Lambda's async handler signature. */
type Handler<Event, Result> = (event: Event, context: LambdaContext) => Promise<Result>

interface OrderEvent {
  readonly orderId: string
  readonly amount: number
}

interface OrderResult {
  readonly orderId: string
  readonly status: "applied" | "busy" | "failed"
  readonly fence?: number
}

const tableName = process.env["LEASEHOLD_TABLE"] ?? "locks"
const ordersTable = process.env["ORDERS_TABLE"] ?? "orders"
// DYNAMODB_ENDPOINT is for local servers only; on Lambda it is unset and the SDK finds the region's endpoint.
const endpoint = process.env["DYNAMODB_ENDPOINT"]
const client = new DynamoDBClient(endpoint === undefined ? {} : { endpoint })

const runtime = ManagedRuntime.make(
  Layer.mergeAll(
    DynamoLockStore.layer({ tableName, client }),
    // Short leases: a frozen environment loses its locks quickly instead of blocking the next invocation.
    Lock.layerDefaults({ lease: "15 seconds" })
  )
)

/** The downstream write, conditional on the fence: a newer holder's write has a higher fence and wins. */
const applyPayment = (orderId: string, amount: number, fence: number) =>
  Effect.tryPromise(() =>
    client.send(
      new UpdateItemCommand({
        TableName: ordersTable,
        Key: { id: { S: orderId } },
        UpdateExpression: "SET paid = if_not_exists(paid, :zero) + :amount, fence = :fence",
        ConditionExpression: "attribute_not_exists(fence) OR fence <= :fence",
        ExpressionAttributeValues: {
          ":amount": { N: String(amount) },
          ":zero": { N: "0" },
          ":fence": { N: String(fence) }
        }
      })
    )
  )

export const handler: Handler<OrderEvent, OrderResult> = (event, context) =>
  Effect.gen(function*() {
    // Answer before Lambda would time the invocation out: `wait` bounds the acquire to within 1 s, and the payment
    // gets the second after that. In milliseconds: a negative remainder is zero here, not an error.
    const wait = Math.max(0, context.getRemainingTimeInMillis() - 2_000)
    const lease = yield* Lock.acquire(`orders/${event.orderId}`, { wait, holder: context.awsRequestId })
    yield* applyPayment(event.orderId, event.amount, lease.fence)
    return { orderId: event.orderId, status: "applied", fence: lease.fence } satisfies OrderResult
  }).pipe(
    Effect.scoped,
    Effect.catchTag("LockNotAcquired", () => Effect.succeed<OrderResult>({ orderId: event.orderId, status: "busy" })),
    Effect.catchAll((error) =>
      Effect.as(
        Effect.logError("order failed", error),
        { orderId: event.orderId, status: "failed" } satisfies OrderResult
      )
    ),
    runtime.runPromise
  )

/**
 * Local run: what Lambda does with a burst of events, five concurrent invocations, three of them for order A. They
 * take turns on A's lock, each payment applies once, and every turn writes with a higher fence than the one before.
 * Only when the file is run directly: on Lambda the runtime imports it and calls `handler`.
 */
const runLocally = async () => {
  // The orders table stands in for the downstream system; on AWS it exists already.
  await client.send(
    new CreateTableCommand({
      TableName: ordersTable,
      AttributeDefinitions: [{ AttributeName: "id", AttributeType: "S" }],
      KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
      BillingMode: "PAY_PER_REQUEST"
    })
  ).catch((error) => {
    if (!(error instanceof ResourceInUseException)) throw error
  })
  await waitUntilTableExists({ client, minDelay: 1, maxWaitTime: 30 }, { TableName: ordersTable })

  const events: ReadonlyArray<OrderEvent> = [
    { orderId: "A", amount: 10 },
    { orderId: "A", amount: 20 },
    { orderId: "B", amount: 5 },
    { orderId: "A", amount: 30 },
    { orderId: "B", amount: 7 }
  ]
  const results = await Promise.all(events.map((event, i) => {
    // Lambda's default timeout is 3 s: each invocation may wait up to 1 s for its order's lock.
    const deadline = Date.now() + 3_000
    return handler(event, { awsRequestId: `local-${i + 1}`, getRemainingTimeInMillis: () => deadline - Date.now() })
  }))
  results.forEach((result, i) => console.log(`local-${i + 1}`, JSON.stringify(events[i]), "->", JSON.stringify(result)))

  for (const orderId of new Set(events.map((event) => event.orderId))) {
    const { Item } = await client.send(
      new GetItemCommand({ TableName: ordersTable, Key: { id: { S: orderId } }, ConsistentRead: true })
    )
    console.log(`order ${orderId}: paid ${Item?.["paid"]?.N ?? 0} in total, last fence ${Item?.["fence"]?.N ?? "-"}`)
  }
  // Lambda freezes the environment instead; a script releases what the runtime holds so that the process can exit.
  await runtime.dispose()
  client.destroy()
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runLocally().catch((error) => {
    console.error(error)
    process.exitCode = 1
  })
}
