/**
 * What a person reads when a lock (or a semaphore's permits) could not be acquired within the `wait` budget.
 *
 * @since 1.0.0
 */
import type { LockRecord } from "../record/LockRecord.js"
import * as Holder from "./Holder.js"

/**
 * How full a semaphore was when permits of it could not be acquired.
 *
 * @since 1.0.0
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
 * What the error knows: the name, the last holder seen, how long the caller waited, and why it gave up when no other
 * holder was the reason (see the lock package's `LockNotAcquired`).
 *
 * @since 1.0.0
 * @category models
 */
export interface Fields {
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
  /**
   * Set when the lock was asked for under a lease session that was lost before the lock was held under it: the
   * session's id. Whatever the acquire wrote is given back in the background.
   */
  readonly session?: string | undefined
}

/**
 * The message: a lost lease session first, then an unanswered store call, then an answer that came too late, then a
 * full semaphore, then a held lock, each with what to do about it.
 *
 * @since 1.0.0
 * @category messages
 */
export const message = (error: Fields): string => {
  const what = error.permits === undefined ? "lock" : "semaphore"
  if (error.session !== undefined) {
    return `${what} "${error.name}" was not acquired: its lease session ${error.session} was lost before the lock ` +
      `was held under it (open a new session to go on; whatever the acquire wrote is being released in the background)`
  }
  if (error.unansweredAfterMs !== undefined) {
    return `${what} "${error.name}" was not acquired: the store had not answered ${error.unansweredAfterMs} ms after ` +
      `"wait" ran out, so the attempt was abandoned after ${error.waitedMs} ms (is the store reachable? whatever ` +
      `the attempt may have written is being released in the background)`
  }
  if (error.answeredAfterMs !== undefined) {
    return `${what} "${error.name}" was acquired, but the store's answer came ${error.answeredAfterMs} ms after the ` +
      `request, too late to use the lease safely, so it was given back; gave up after ${error.waitedMs} ms (the ` +
      `store is slow or this process is overloaded: raise "lease", or "wait" to try again)`
  }
  if (error.permits !== undefined) {
    const { holders, limit, used, wanted } = error.permits
    return `semaphore "${error.name}" has no ${wanted} free of its ${limit} permits (${used} held by ${holders} ` +
      `holders); gave up after ${error.waitedMs} ms (raise the "wait" option to wait longer)`
  }
  return `lock "${error.name}" is held by ${Holder.describe(error.holder)}; gave up after ${error.waitedMs} ms ` +
    `(raise the "wait" option to wait longer)`
}
