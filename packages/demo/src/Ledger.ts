/**
 * The shared ledger: one item in the lock table that the workers' critical sections update with a deliberately
 * non-atomic read-modify-write (read the value, work, write the value + 1). It is the downstream system of the demo,
 * and it honours fencing tokens: every read and write is a DynamoDB conditional update that only succeeds if no
 * higher fence has touched the item (`attribute_not_exists(fence) OR fence <= :fence`). The read raises the item's
 * fence to the reader's, so once a new holder has read, every write of an older holder is refused.
 *
 * Each accepted write appends `{ fence, value, worker }` to the item's `history`: the verdict reads it back.
 *
 * @since 1.0.0
 */
import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  GetItemCommand,
  UpdateItemCommand
} from "@aws-sdk/client-dynamodb"
import * as Effect from "effect/Effect"

/**
 * One accepted write, in commit order.
 *
 * @since 1.0.0
 * @category models
 */
export interface Entry {
  readonly fence: number
  readonly value: number
  readonly worker: number
}

/**
 * The ledger as the verdict sees it.
 *
 * @since 1.0.0
 * @category models
 */
export interface Snapshot {
  readonly value: number
  /** The highest fence that touched the item. */
  readonly fence: number
  readonly history: ReadonlyArray<Entry>
}

/**
 * A write or fenced read refused because a higher fence got there first.
 *
 * @since 1.0.0
 * @category models
 */
export interface Rejected {
  readonly _tag: "Rejected"
}

/**
 * @since 1.0.0
 * @category models
 */
export interface Ledger {
  /** Raises the item's fence to `fence` and returns the value, or `Rejected` if a higher fence was there. */
  readonly fencedRead: (fence: number) => Effect.Effect<number | Rejected>
  /** Writes `value` if no higher fence touched the item, appending to its history; else `Rejected`. */
  readonly write: (fence: number, value: number, worker: number) => Effect.Effect<"Accepted" | Rejected>
  /** The item as it is (a consistent read). */
  readonly snapshot: Effect.Effect<Snapshot>
}

/** The fencing condition, the same for reads and writes. */
const fenced = "attribute_not_exists(#fence) OR #fence <= :fence"

const rejected: Rejected = { _tag: "Rejected" }

/** A demo's ledger is of no use after the run; a day is long enough to look at it. */
const ledgerTtlSeconds = 24 * 60 * 60

/**
 * A ledger on `tableName`, item `{ key: ledgerKey }`, through `client`. Store errors are defects: the demo has no
 * answer to a broken ledger other than stopping.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (client: DynamoDBClient, tableName: string, ledgerKey: string): Ledger => {
  const Key = { key: { S: ledgerKey } }
  const send = <A>(f: (signal: AbortSignal) => Promise<A>) =>
    Effect.tryPromise({ try: f, catch: (error) => error }).pipe(
      Effect.map((output) => output as A | Rejected),
      Effect.catchIf((error) => error instanceof ConditionalCheckFailedException, () => Effect.succeed(rejected)),
      Effect.orDie
    )
  return {
    fencedRead: (fence) =>
      send((abortSignal) =>
        client.send(
          new UpdateItemCommand({
            TableName: tableName,
            Key,
            // The ttl lets DynamoDB TTL remove a demo's ledger from a real table a day later.
            UpdateExpression: "SET #fence = :fence, #ttl = :ttl",
            ConditionExpression: fenced,
            ExpressionAttributeNames: { "#fence": "fence", "#ttl": "ttl" },
            ExpressionAttributeValues: {
              ":fence": { N: String(fence) },
              ":ttl": { N: String(Math.floor(Date.now() / 1000) + ledgerTtlSeconds) }
            },
            ReturnValues: "ALL_NEW"
          }),
          { abortSignal }
        )
      ).pipe(
        Effect.map((output) => "_tag" in output ? output : Number(output.Attributes?.["value"]?.N ?? "0"))
      ),
    write: (fence, value, worker) =>
      send((abortSignal) =>
        client.send(
          new UpdateItemCommand({
            TableName: tableName,
            Key,
            UpdateExpression: "SET #value = :value, #fence = :fence, #history = list_append(if_not_exists(#history, " +
              ":empty), :entry)",
            ConditionExpression: fenced,
            ExpressionAttributeNames: { "#fence": "fence", "#value": "value", "#history": "history" },
            ExpressionAttributeValues: {
              ":fence": { N: String(fence) },
              ":value": { N: String(value) },
              ":empty": { L: [] },
              ":entry": {
                L: [{ M: { fence: { N: String(fence) }, value: { N: String(value) }, worker: { N: String(worker) } } }]
              }
            }
          }),
          { abortSignal }
        )
      ).pipe(Effect.map((output) => "_tag" in output ? output : "Accepted" as const)),
    snapshot: send((abortSignal) =>
      client.send(new GetItemCommand({ TableName: tableName, Key, ConsistentRead: true }), { abortSignal })
    ).pipe(
      Effect.map((output): Snapshot => {
        const item = "_tag" in output ? undefined : output.Item
        const history = (item?.["history"]?.L ?? []).map((entry): Entry => ({
          fence: Number(entry.M?.["fence"]?.N ?? "NaN"),
          value: Number(entry.M?.["value"]?.N ?? "NaN"),
          worker: Number(entry.M?.["worker"]?.N ?? "NaN")
        }))
        return {
          value: Number(item?.["value"]?.N ?? "0"),
          fence: Number(item?.["fence"]?.N ?? "0"),
          history
        }
      })
    )
  }
}
