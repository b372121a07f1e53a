/**
 * An AWS Lambda handler that serialises work per order across concurrent invocations: two invocations for the same
 * order (a retry, a duplicate delivery) never run the critical section at the same time, and the fencing token
 * makes the downstream write conditional, so an invocation that froze past its lease (Lambda freezes execution
 * environments between invocations) can not overwrite a newer one.
 *
 * The Effect runtime (and with it the DynamoDB client) is built once per execution environment, outside the
 * handler, and reused by every invocation it serves.
 */
import { DynamoDBClient, UpdateItemCommand } from "@aws-sdk/client-dynamodb"
import { DynamoLockStore } from "@leasehold/dynamodb"
import { Lock } from "@leasehold/lock"
import { Effect, Layer, ManagedRuntime } from "effect"

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
const client = new DynamoDBClient({})

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
