/**
 * Turning what the SDK throws into a `LockStoreError` that names the cause and the fix, as the core's `Failure`
 * judges it.
 *
 * @internal
 */
import * as Failure from "@leasehold/core/dynamodb/Failure"
import { LockStoreError, type StoreOperation } from "@leasehold/lock/LockError"

export {
  /** @internal */
  closedMessage,
  /** @internal */
  isConditionalCheckFailed,
  /** @internal */
  isTransient,
  /** @internal */
  mayHaveApplied,
  /** @internal */
  RequestTimedOut
} from "@leasehold/core/dynamodb/Failure"

/** What the store knows when it explains a failure: the core's, and the operation the error is of. */
export interface Context extends Failure.Context {
  readonly operation: StoreOperation
}

/**
 * The `LockStoreError` for a failed request, with a message that names the cause and the fix.
 *
 * @internal
 */
export const toStoreError = (error: unknown, context: Context): LockStoreError => {
  const judged = Failure.judge(error, context)
  return new LockStoreError({
    operation: context.operation,
    retryable: judged.retryable,
    message: judged.message,
    cause: error,
    mayHaveApplied: judged.mayHaveApplied
  })
}
