/**
 * What a person reads when a held lock (or a semaphore's permits) was lost, by reason.
 *
 * @since 1.0.0
 */
import type { LockRecord } from "../record/LockRecord.js"
import * as Holder from "./Holder.js"

/**
 * Why a held lock was lost (the lock package's `LostReason` says what each means).
 *
 * @since 1.0.0
 * @category models
 */
export type Reason = "expired" | "stolen" | "freed" | "released" | "handedOff"

/**
 * What the error knows: the lease lost, why, the new holder when the store said, and the permits for a semaphore.
 *
 * @since 1.0.0
 * @category models
 */
export interface Fields {
  readonly name: string
  readonly fence: number
  readonly reason: Reason
  readonly by: LockRecord | undefined
  readonly permits?: number | undefined
  /** Set when the lock was held under a lease session and lost with it: the session's id. */
  readonly session?: string | undefined
}

/**
 * The message, by reason, with where to look.
 *
 * @since 1.0.0
 * @category messages
 */
export const message = (error: Fields): string => {
  const what = error.permits === undefined
    ? `lock "${error.name}" (fence ${error.fence})`
    : `${error.permits} permit(s) of semaphore "${error.name}" (fence ${error.fence})`
  if (
    error.session !== undefined && (error.reason === "expired" || error.reason === "stolen" || error.reason === "freed")
  ) {
    return `${what} was lost with its lease session ${error.session}: ` + (error.reason === "expired"
      ? `the session's lease ran out before a renew succeeded (is the store reachable? is the process pausing for ` +
        `longer than the lease?)`
      : `the session's record is no longer the session's (an operator released it, or it was taken over as ` +
        `expired)`)
  }
  switch (error.reason) {
    case "expired":
      return `${what} was lost: its lease ran out before a renew succeeded ` +
        `(is the store reachable? is the process pausing for longer than the lease?)`
    case "stolen":
      return error.permits === undefined
        ? `${what} was lost: it is now held by ${Holder.describe(error.by)}`
        : `${what} was lost: they are no longer in the semaphore's record (given back in this holder's place, or ` +
          `taken over as expired)`
    case "freed":
      return `${what} was lost: the store shows it free, so it was released in this holder's place: by an ` +
        `operator (forceRelease, or "leasehold release --force"), or by a holder that took it over and has ` +
        `released it since`
    case "released":
      return `lock "${error.name}" (fence ${error.fence}) was released while still in use: by the acquisition a ` +
        `re-entered section borrowed it from, while the section still ran, or by its own scope before a data ` +
        `update (a section or fiber forked inside a lock must end with it)`
    case "handedOff":
      return `lock "${error.name}" (fence ${error.fence}) was handed off to another process (Lock.handOff); this ` +
        `process may no longer act under it`
  }
}
