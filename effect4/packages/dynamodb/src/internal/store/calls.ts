/**
 * The calls of each operation, as errors name them: the store operation and the DynamoDB action.
 *
 * @internal
 */
import type { StoreOperation } from "@leasehold/lock/LockError"
import type * as Transport from "../transport/transport.js"

/**
 * The calls of each operation, as errors name them.
 *
 * @internal
 */
export const calls = {
  tryAcquire: { operation: "tryAcquire", action: "UpdateItem", reportsUnknownOutcomes: true },
  renew: { operation: "renew", action: "UpdateItem" },
  release: { operation: "release", action: "UpdateItem" },
  reserve: { operation: "reserve", action: "UpdateItem" },
  forceRelease: { operation: "forceRelease", action: "UpdateItem" },
  tryAcquirePermits: { operation: "tryAcquirePermits", action: "UpdateItem", reportsUnknownOutcomes: true },
  renewPermits: { operation: "renewPermits", action: "UpdateItem" },
  releasePermits: { operation: "releasePermits", action: "UpdateItem" },
  query: { operation: "list", action: "Query" },
  scan: { operation: "list", action: "Scan" }
} as const satisfies Record<string, Transport.Call>

/**
 * The consistent reads, of `inspect` and of the operations that read the holder after a failed condition.
 *
 * @internal
 */
export const getItemCalls = {
  tryAcquire: { operation: "tryAcquire", action: "GetItem" },
  renew: { operation: "renew", action: "GetItem" },
  release: { operation: "release", action: "GetItem" },
  reserve: { operation: "reserve", action: "GetItem" },
  inspect: { operation: "inspect", action: "GetItem" },
  tryAcquirePermits: { operation: "tryAcquirePermits", action: "GetItem" },
  renewPermits: { operation: "renewPermits", action: "GetItem" },
  releasePermits: { operation: "releasePermits", action: "GetItem" },
  inspectSemaphore: { operation: "inspectSemaphore", action: "GetItem" }
} as const satisfies Partial<Record<StoreOperation, Transport.Call>>
