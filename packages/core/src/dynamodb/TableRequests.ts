/**
 * How the table helpers make their control-plane requests (describe a table and its TTL, turn TTL on, wait for a new
 * table to become ACTIVE, ask a server whether it has TTL at all), and what the answers that are not a table's
 * description mean. What a description means is `TableDescription`'s.
 *
 * @since 1.0.0
 */
import * as TableDescription from "./TableDescription.js"

/**
 * A table request is not urgent: a slow control plane gets longer than a lock request does.
 *
 * @since 1.0.0
 * @category constants
 */
export const requestTimeoutMs = 10_000

/**
 * How the table helpers' requests are retried: the request timeout, how many retries follow a transient failure, and
 * the first backoff.
 *
 * @since 1.0.0
 * @category constants
 */
export const retryPlan = { requestTimeoutMs, maxRetries: 3, retryBaseDelayMs: 100 } as const

/**
 * Between two looks at a table that is still being created: frequent enough to return soon after it is ready.
 *
 * @since 1.0.0
 * @category constants
 */
export const activePollIntervalMs = 250

/**
 * A table name no table can have (DynamoDB's allow neither spaces nor ":"), for a TTL request that can not apply.
 *
 * @since 1.0.0
 * @category constants
 */
export const impossibleTableName = "leasehold: TTL support probe"

/**
 * The name of the error a request failed with (the SDK's `name`), when its cause has one.
 *
 * @since 1.0.0
 * @category judgements
 */
export const errorName = (cause: unknown): string | undefined => {
  const named = cause as { readonly name?: unknown } | undefined
  return typeof named?.name === "string" ? named.name : undefined
}

/**
 * Whether the server knows `UpdateTimeToLive`, from its refusal (an error trying again can not fix) of a request that
 * names `impossibleTableName`: a server with TTL refuses it (as invalid, or as not allowed by a least-privilege
 * policy) and only a server without TTL answers that it has no such operation. dynalite, for one, describes every
 * table's TTL as DISABLED but has no way to turn it on.
 *
 * @since 1.0.0
 * @category judgements
 */
export const knowsUpdateTtl = (refusedWith: string | undefined): boolean =>
  !TableDescription.isUnknownOperation(refusedWith)

/**
 * The message of a `DescribeTable` answer without a table's description.
 *
 * @since 1.0.0
 * @category messages
 */
export const noDescriptionMessage = (tableName: string): string =>
  `DescribeTable on "${tableName}" returned no table description`

/**
 * The message of a table that was not ACTIVE `within` (a duration, as people read it) of its creation.
 *
 * @since 1.0.0
 * @category messages
 */
export const notActiveMessage = (tableName: string, within: string): string =>
  `table "${tableName}" did not become ACTIVE within ${within}: check it in the console or with DescribeTable, and ` +
  "run createTable again"
