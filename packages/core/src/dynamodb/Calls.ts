/**
 * The DynamoDB calls of each store operation, as its errors name them: the store operation and the DynamoDB action,
 * and whether an attempt that may have been applied is reported rather than retried.
 *
 * @since 1.0.0
 */

/**
 * One kind of request a store sends.
 *
 * @since 1.0.0
 * @category models
 */
export interface Call {
  readonly operation: string
  /** The DynamoDB action, e.g. "UpdateItem". */
  readonly action: string
  /**
   * Set: an attempt that may have been applied (a timeout, a dropped connection, a server error) is reported, not
   * retried. An acquire must know of every write of its owner that may still land: it dates a lease that bears its
   * owner from the earliest of them, and a retry would hide one.
   */
  readonly reportsUnknownOutcomes?: true
}

/**
 * The writes and listings of each operation, and the batch read that follows the transaction of `tryAcquireAll`.
 *
 * @since 1.0.0
 * @category calls
 */
export const calls = {
  tryAcquire: { operation: "tryAcquire", action: "UpdateItem", reportsUnknownOutcomes: true },
  tryAcquireAll: { operation: "tryAcquireAll", action: "TransactWriteItems", reportsUnknownOutcomes: true },
  /** The read of the records a `tryAcquireAll` wrote: it changes nothing, so it retries as any read does. */
  readAcquiredAll: { operation: "tryAcquireAll", action: "BatchGetItem" },
  renew: { operation: "renew", action: "UpdateItem" },
  release: { operation: "release", action: "UpdateItem" },
  reserve: { operation: "reserve", action: "UpdateItem" },
  forceRelease: { operation: "forceRelease", action: "UpdateItem" },
  tryAcquirePermits: { operation: "tryAcquirePermits", action: "UpdateItem", reportsUnknownOutcomes: true },
  renewPermits: { operation: "renewPermits", action: "UpdateItem" },
  releasePermits: { operation: "releasePermits", action: "UpdateItem" },
  reservePermits: { operation: "reservePermits", action: "UpdateItem" },
  unpinSemaphore: { operation: "releasePermits", action: "UpdateItem" },
  query: { operation: "list", action: "Query" },
  scan: { operation: "list", action: "Scan" }
} as const satisfies Record<string, Call>

/**
 * The consistent reads, of `inspect` and of the operations that read the holder after a failed condition.
 *
 * @since 1.0.0
 * @category calls
 */
export const getItemCalls = {
  tryAcquire: { operation: "tryAcquire", action: "GetItem" },
  renew: { operation: "renew", action: "GetItem" },
  release: { operation: "release", action: "GetItem" },
  reserve: { operation: "reserve", action: "GetItem" },
  forceRelease: { operation: "forceRelease", action: "GetItem" },
  inspect: { operation: "inspect", action: "GetItem" },
  tryAcquirePermits: { operation: "tryAcquirePermits", action: "GetItem" },
  renewPermits: { operation: "renewPermits", action: "GetItem" },
  releasePermits: { operation: "releasePermits", action: "GetItem" },
  reservePermits: { operation: "reservePermits", action: "GetItem" },
  inspectSemaphore: { operation: "inspectSemaphore", action: "GetItem" }
} as const satisfies Record<string, Call>
