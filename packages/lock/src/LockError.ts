/**
 * The typed errors of Leasehold. Each carries fields a program can branch on and a `message` a person can act on.
 *
 * @since 1.0.0
 */
import * as DataMismatch from "@leasehold/core/errors/DataMismatch"
import * as LimitMismatch from "@leasehold/core/errors/LimitMismatch"
import * as Lost from "@leasehold/core/errors/Lost"
import * as NotAcquired from "@leasehold/core/errors/NotAcquired"
import * as UpgradeRefused from "@leasehold/core/errors/UpgradeRefused"
import * as Data from "effect/Data"
import type { SchemaError } from "./internal/effectLine.js"
import type { LockRecord } from "./LockRecord.js"
import type { OperationName } from "./LockStore.js"

/**
 * How full a semaphore was when permits of it could not be acquired.
 *
 * @since 1.0.0
 * @category models
 */
export type PermitShortage = NotAcquired.PermitShortage

/**
 * The lock (or a semaphore's permits) could not be acquired within the `wait` budget: another holder has it.
 *
 * @since 1.0.0
 * @category errors
 */
export class LockNotAcquired extends Data.TaggedError("LockNotAcquired")<NotAcquired.Fields> {
  override get message(): string {
    return NotAcquired.message(this)
  }
}

/**
 * Why a held lock was lost:
 *
 * - `expired`: its lease ran out before a renew succeeded.
 * - `stolen`: a renew found another owner (in `by`); for a semaphore's permits, that they are no longer in its record
 *   (taken over as expired, or given back in their holder's place: the record can not tell which).
 * - `freed`: a renew found the lock free, released in this holder's place: by an operator (`forceRelease`, the CLI's
 *   `release --force`), or by a holder that took it over and has released it since.
 * - `released`: for a re-entered section, whose outer acquisition released the lease while the section still ran,
 *   and for a data update (`Lease.updateData`) of a lease that was already released.
 * - `handedOff`: the lease was handed to another process (`Lock.handOff`), so this process may no longer act under it.
 *
 * @since 1.0.0
 * @category models
 */
export type LostReason = Lost.Reason

/**
 * A held lock was lost; the critical section was interrupted.
 *
 * @since 1.0.0
 * @category errors
 */
export class LockLost extends Data.TaggedError("LockLost")<{
  readonly name: string
  readonly owner: string
  readonly fence: number
  readonly reason: LostReason
  /** The new holder, when the store told us (reason "stolen"); `undefined` for every other reason. */
  readonly by: LockRecord | undefined
  /** Set when what was lost are permits of a semaphore (`name` is then the semaphore's): how many. */
  readonly permits?: number | undefined
  /** Set when the lock was held under a lease session and lost with it (`LeaseSession`): the session's id. */
  readonly session?: string | undefined
}> {
  override get message(): string {
    return Lost.message(this)
  }
}

/**
 * What a store error happened in: one of the store's operations, or a table helper.
 *
 * @since 1.0.0
 * @category models
 */
export type StoreOperation = OperationName | "createTable" | "checkTable"

/**
 * The store failed to answer: a network error, throttling that outlasted the retries, a missing table, bad
 * credentials. `retryable` says whether trying again later can help.
 *
 * @since 1.0.0
 * @category errors
 */
export class LockStoreError extends Data.TaggedError("LockStoreError")<{
  readonly operation: StoreOperation
  readonly retryable: boolean
  /** What went wrong and, where we know it, how to fix it. */
  readonly message: string
  readonly cause?: unknown
  /**
   * `false` when the store knows that no attempt of the request was applied (it refused the request before sending
   * it, could not connect, or the server refused it: a missing table, a bad request, throttling, denied access).
   * `true` or absent: it may have been applied, or may still be (a timeout, a dropped connection, a server error).
   * An acquire that failed so cleans up after itself only when the write may have been applied.
   */
  readonly mayHaveApplied?: boolean | undefined
}> {}

/**
 * A lock name or option is invalid. Reported before any store call.
 *
 * @since 1.0.0
 * @category errors
 */
export class LockConfigError extends Data.TaggedError("LockConfigError")<{
  /** The option (or "name") that is wrong. */
  readonly option: string
  /** What is wrong with it and what is allowed. */
  readonly message: string
}> {}

/**
 * Typed lock data (`TypedLock`) that does not fit the lock's schema: `encode`, the value a program tried to store
 * (reported before any store call, so nothing was written); `decode`, what a lock holds (another program stored
 * something else under the name, or an older version of this one stored another shape). `cause` is the schema's
 * error (`ParseError` on Effect 3, `SchemaError` on Effect 4), which says where and why.
 *
 * @since 1.0.0
 * @category errors
 */
export class LockDataError extends Data.TaggedError("LockDataError")<{
  /** The lock whose data it is. */
  readonly name: string
  readonly direction: "encode" | "decode"
  readonly cause: SchemaError
}> {
  override get message(): string {
    return DataMismatch.message({ name: this.name, direction: this.direction, causeMessage: this.cause.message })
  }
}

/**
 * A semaphore's stored limit is not the one this acquisition asked for: the processes that share the name disagree
 * about how many may hold it at once. Nothing was written; taking the permits anyway would silently make the pool
 * larger or smaller than some of them expect. Deploy one limit everywhere (a semaphore's limit can only change once
 * nobody holds it and its record is deleted).
 *
 * @since 1.0.0
 * @category errors
 */
export class SemaphoreLimitMismatch extends Data.TaggedError("SemaphoreLimitMismatch")<{
  readonly name: string
  /** The limit this acquisition asked with. */
  readonly limit: number
  /** The limit the semaphore's record has. */
  readonly storedLimit: number
}> {
  override get message(): string {
    return LimitMismatch.message(this)
  }
}

/**
 * A fiber inside a read lock asked for the write lock of the same name (`ReadWriteLock`). Nothing was written and
 * the read lock is still held. An upgrade is refused rather than waited for: two readers upgrading at once would each
 * wait for the other to stop reading, forever.
 *
 * @since 1.0.0
 * @category errors
 */
export class LockUpgradeRefused extends Data.TaggedError("LockUpgradeRefused")<UpgradeRefused.Fields> {
  override get message(): string {
    return UpgradeRefused.message(this)
  }
}

/**
 * Every error a lock operation can fail with.
 *
 * @since 1.0.0
 * @category errors
 */
export type LockError =
  | LockNotAcquired
  | LockLost
  | LockStoreError
  | LockConfigError
  | LockDataError
  | SemaphoreLimitMismatch
