/**
 * The typed errors of Leasehold. Each carries fields a program can branch on and a `message` a person can act on.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import type * as ParseResult from "effect/ParseResult"
import type { LockRecord } from "./LockRecord.js"
import type { OperationName } from "./LockStore.js"

const describeHolder = (record: LockRecord | undefined): string => {
  if (record === undefined || record.owner === undefined) return "an unknown holder"
  const until = Number.isFinite(record.leaseUntil) ? new Date(record.leaseUntil).toISOString() : "?"
  return `${record.holder ?? "?"} (owner ${record.owner}, fence ${record.fence}, lease until ${until})`
}

/**
 * How full a semaphore was when permits of it could not be acquired.
 *
 * @since 0.2.0
 * @category models
 */
export interface PermitShortage {
  /** The permits asked for. */
  readonly wanted: number
  readonly limit: number
  /** The permits held when last seen, by `holders` holders (whose leases may be over but not yet taken over). */
  readonly used: number
  readonly holders: number
}

/**
 * The lock (or a semaphore's permits) could not be acquired within the `wait` budget: another holder has it.
 *
 * @since 0.1.0
 * @category errors
 */
export class LockNotAcquired extends Data.TaggedError("LockNotAcquired")<{
  readonly name: string
  /** The holder seen by the last attempt, when the store told us. */
  readonly holder: LockRecord | undefined
  /** How long the caller waited before giving up, in milliseconds. */
  readonly waitedMs: number
  /**
   * Set when the last attempt did acquire, but its answer came this many milliseconds after it was sent: too late to
   * use the lease safely, so it was given back. A slow store or an overloaded process, not another holder.
   */
  readonly answeredAfterMs?: number | undefined
  /**
   * Set when `wait` ran out with a store call still unanswered: how long past `wait` it was given before it was
   * abandoned. Whatever the call may have written is released in the background. A slow or unreachable store.
   */
  readonly unansweredAfterMs?: number | undefined
  /** Set for a semaphore (`name` is then the semaphore's): how full the last attempt found it. */
  readonly permits?: PermitShortage | undefined
}> {
  override get message(): string {
    const what = this.permits === undefined ? "lock" : "semaphore"
    if (this.unansweredAfterMs !== undefined) {
      return `${what} "${this.name}" was not acquired: the store had not answered ${this.unansweredAfterMs} ms after ` +
        `"wait" ran out, so the attempt was abandoned after ${this.waitedMs} ms (is the store reachable? whatever ` +
        `the attempt may have written is being released in the background)`
    }
    if (this.answeredAfterMs !== undefined) {
      return `${what} "${this.name}" was acquired, but the store's answer came ${this.answeredAfterMs} ms after the ` +
        `request, too late to use the lease safely, so it was given back; gave up after ${this.waitedMs} ms (the ` +
        `store is slow or this process is overloaded: raise "lease", or "wait" to try again)`
    }
    if (this.permits !== undefined) {
      const { holders, limit, used, wanted } = this.permits
      return `semaphore "${this.name}" has no ${wanted} free of its ${limit} permits (${used} held by ${holders} ` +
        `holders); gave up after ${this.waitedMs} ms (raise the "wait" option to wait longer)`
    }
    return `lock "${this.name}" is held by ${describeHolder(this.holder)}; gave up after ${this.waitedMs} ms ` +
      `(raise the "wait" option to wait longer)`
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
 * @since 0.1.0
 * @category models
 */
export type LostReason = "expired" | "stolen" | "freed" | "released" | "handedOff"

/**
 * A held lock was lost; the critical section was interrupted.
 *
 * @since 0.1.0
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
}> {
  override get message(): string {
    const what = this.permits === undefined
      ? `lock "${this.name}" (fence ${this.fence})`
      : `${this.permits} permit(s) of semaphore "${this.name}" (fence ${this.fence})`
    switch (this.reason) {
      case "expired":
        return `${what} was lost: its lease ran out before a renew succeeded ` +
          `(is the store reachable? is the process pausing for longer than the lease?)`
      case "stolen":
        return this.permits === undefined
          ? `${what} was lost: it is now held by ${describeHolder(this.by)}`
          : `${what} was lost: they are no longer in the semaphore's record (given back in this holder's place, or ` +
            `taken over as expired)`
      case "freed":
        return `${what} was lost: the store shows it free, so it was released in this holder's place: by an ` +
          `operator (forceRelease, or "leasehold release --force"), or by a holder that took it over and has ` +
          `released it since`
      case "released":
        return `lock "${this.name}" (fence ${this.fence}) was released while still in use: by the acquisition a ` +
          `re-entered section borrowed it from, while the section still ran, or by its own scope before a data ` +
          `update (a section or fiber forked inside a lock must end with it)`
      case "handedOff":
        return `lock "${this.name}" (fence ${this.fence}) was handed off to another process (Lock.handOff); this ` +
          `process may no longer act under it`
    }
  }
}

/**
 * What a store error happened in: one of the store's operations, or a table helper.
 *
 * @since 0.1.0
 * @category models
 */
export type StoreOperation = OperationName | "createTable" | "checkTable"

/**
 * The store failed to answer: a network error, throttling that outlasted the retries, a missing table, bad
 * credentials. `retryable` says whether trying again later can help.
 *
 * @since 0.1.0
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
 * @since 0.1.0
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
 * `ParseError`, which says where and why.
 *
 * @since 0.2.0
 * @category errors
 */
export class LockDataError extends Data.TaggedError("LockDataError")<{
  /** The lock whose data it is. */
  readonly name: string
  readonly direction: "encode" | "decode"
  readonly cause: ParseResult.ParseError
}> {
  override get message(): string {
    return this.direction === "encode"
      ? `the data for lock "${this.name}" does not fit the lock's schema, so nothing was written: ` +
        `${this.cause.message}`
      : `lock "${this.name}" holds data that does not fit this lock's schema (was it stored by another program, or ` +
        `by a version of this one with another schema? every program that shares the name must use the same ` +
        `schema, or one that decodes what the others store): ${this.cause.message}`
  }
}

/**
 * A semaphore's stored limit is not the one this acquisition asked for: the processes that share the name disagree
 * about how many may hold it at once. Nothing was written; taking the permits anyway would silently make the pool
 * larger or smaller than some of them expect. Deploy one limit everywhere (a semaphore's limit can only change once
 * nobody holds it and its record is deleted).
 *
 * @since 0.2.0
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
    return `semaphore "${this.name}" has a limit of ${this.storedLimit} in the store, but this acquisition asked ` +
      `with ${this.limit}: every process that shares the name must use the same limit`
  }
}

/**
 * Every error a lock operation can fail with.
 *
 * @since 0.1.0
 * @category errors
 */
export type LockError =
  | LockNotAcquired
  | LockLost
  | LockStoreError
  | LockConfigError
  | LockDataError
  | SemaphoreLimitMismatch
