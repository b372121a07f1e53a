/**
 * `tryAcquireAll` as DynamoDB requests: one `TransactWriteItems` whose every item is the acquiring write of a free
 * lock (`LockRequests.acquire` with `freeOnly`), what a server's refusal of it means, and the consistent `BatchGetItem`
 * that reads back the records it wrote, which a transaction does not return.
 *
 * @since 1.0.0
 */
import type { LockRecord } from "../record/LockRecord.js"
import type * as LockProtocol from "../store/LockProtocol.js"
import type { ItemMap } from "./AttributeValue.js"
import * as LockRequests from "./LockRequests.js"
import * as TableDescription from "./TableDescription.js"

/**
 * One lock of the take: its request and its key in the table.
 *
 * @since 1.0.0
 * @category models
 */
export interface Keyed {
  readonly request: LockProtocol.AcquireRequest
  readonly key: ItemMap
}

/**
 * The transaction at `now` on the writer's clock: each lock's write exactly as a single `tryAcquire` of a free lock
 * makes it (under a session, naming it), so that the two paths keep one condition and one record. No item returns its
 * old values on a failed condition: `Refused` carries no record.
 *
 * @since 1.0.0
 * @category requests
 */
export const transaction = (
  tableName: string,
  locks: ReadonlyArray<Keyed>,
  now: number,
  ttlRetentionMs: number
): {
  readonly TransactItems: Array<{
    readonly Update: LockRequests.Request & { readonly TableName: string; readonly Key: ItemMap }
  }>
} => ({
  TransactItems: locks.map(({ key, request }) => ({
    Update: {
      TableName: tableName,
      Key: key,
      ...LockRequests.acquire(request, now, LockRequests.freeOnly, ttlRetentionMs)
    }
  }))
})

/**
 * How a server refused the transaction as a whole, having applied none of it:
 *
 * - `Unsupported`: it has no such operation (dynalite answers `UnknownOperationException`).
 * - `Refused`: a lock was not free (a failed condition), or another transaction was writing one of the items.
 * - `Canceled`: DynamoDB canceled it for another reason (throttling, which may pass: `retryable`; or a refusal of an
 *   item, which will not).
 *
 * @since 1.0.0
 * @category models
 */
export type Rejection =
  | { readonly _tag: "Unsupported" }
  | { readonly _tag: "Refused" }
  | { readonly _tag: "Canceled"; readonly retryable: boolean; readonly reasons: string }

/** What a lock being taken by someone else looks like to a transaction: the lock is not free for this one. */
const takenElsewhere = new Set(["ConditionalCheckFailed", "TransactionConflict"])

/** Cancellations that trying again later can get past. */
const throttled = new Set(["ThrottlingError", "ProvisionedThroughputExceeded", "RequestLimitExceeded"])

interface Reason {
  readonly Code?: unknown
  readonly Message?: unknown
}

const codeOf = (reason: Reason): string => typeof reason.Code === "string" ? reason.Code : "None"

/**
 * The rejection that `error` (what the SDK threw for the transaction) is, or `undefined` for any other failure, which
 * the store judges as it judges every request's. A failed condition anywhere is `Refused`, whatever else the other
 * items met: one lock was not free, and another attempt would find it so.
 *
 * @since 1.0.0
 * @category judgements
 */
export const rejection = (error: unknown): Rejection | undefined => {
  if (typeof error !== "object" || error === null) return undefined
  const { CancellationReasons, name } = error as { readonly name?: unknown; readonly CancellationReasons?: unknown }
  if (typeof name === "string" && TableDescription.isUnknownOperation(name)) return { _tag: "Unsupported" }
  if (name !== "TransactionCanceledException") return undefined
  const reasons: ReadonlyArray<Reason> = Array.isArray(CancellationReasons) ? CancellationReasons : []
  const codes = reasons.map(codeOf)
  if (codes.includes("ConditionalCheckFailed")) return { _tag: "Refused" }
  const causes = codes.filter((code) => code !== "None")
  if (causes.length > 0 && causes.every((code) => takenElsewhere.has(code))) return { _tag: "Refused" }
  const described = reasons.flatMap((reason, index) =>
    codeOf(reason) === "None"
      ? []
      : [`item ${index + 1}: ${codeOf(reason)}${typeof reason.Message === "string" ? ` (${reason.Message})` : ""}`]
  )
  return {
    _tag: "Canceled",
    retryable: causes.length > 0 && causes.every((code) => throttled.has(code) || takenElsewhere.has(code)),
    reasons: described.length === 0 ? "no reasons given" : described.join("; ")
  }
}

/**
 * The message of a transaction DynamoDB canceled for a reason other than a lock that was not free.
 *
 * @since 1.0.0
 * @category messages
 */
export const canceledMessage = (tableName: string, canceled: Extract<Rejection, { _tag: "Canceled" }>): string =>
  `DynamoDB canceled TransactWriteItems on table "${tableName}" and applied none of it (${canceled.reasons})` +
  (canceled.retryable
    ? ": the table or account is over its capacity; try again later, or raise the table's throughput"
    : "")

/**
 * The consistent read of `keys` in `tableName`: the records as the transaction left them.
 *
 * @since 1.0.0
 * @category requests
 */
export const batchRead = (tableName: string, keys: ReadonlyArray<ItemMap>): {
  readonly RequestItems: Record<string, { readonly Keys: Array<ItemMap>; readonly ConsistentRead: true }>
} => ({ RequestItems: { [tableName]: { Keys: [...keys], ConsistentRead: true } } })

/**
 * The message of a batch read that still left keys unread after `rounds` rounds.
 *
 * @since 1.0.0
 * @category messages
 */
export const unreadMessage = (tableName: string, unread: number, rounds: number): string =>
  `DynamoDB left ${unread} of the keys of BatchGetItem on table "${tableName}" unprocessed after ${rounds} ` +
  `rounds: the table or account is over its capacity; use on-demand billing or raise its provisioned throughput`

/**
 * The message of a failure after the transaction applied: the locks are the caller's, but the store can not show
 * their records, so it reports the take as one that may have applied and the caller gives them back.
 *
 * @since 1.0.0
 * @category messages
 */
export const afterWriteMessage = (message: string): string =>
  `the locks were taken in one TransactWriteItems, but their records could not be read back: ${message}`

/**
 * What the read found: every record, in the order of the requests, showing its request's owner; or what is wrong.
 * Another owner, or no holder, means the lock changed hands between the write and the read (a force release, say):
 * the take can not be answered `Acquired`.
 *
 * @since 1.0.0
 * @category judgements
 */
export const acquired = (
  requests: ReadonlyArray<LockProtocol.AcquireRequest>,
  records: ReadonlyMap<string, LockRecord>
):
  | { readonly _tag: "Acquired"; readonly records: ReadonlyArray<LockRecord> }
  | { readonly _tag: "NotShown"; readonly message: string } =>
{
  const found: Array<LockRecord> = []
  for (const request of requests) {
    const record = records.get(request.name)
    if (record === undefined || record.owner !== request.owner) {
      const seen = record === undefined
        ? "has no item"
        : record.owner === undefined
        ? "has no holder"
        : `is held by owner ${record.owner}`
      return {
        _tag: "NotShown",
        message: afterWriteMessage(`lock "${request.name}" ${seen}, not owner ${request.owner} of the take`)
      }
    }
    found.push(record)
  }
  return { _tag: "Acquired", records: found }
}
