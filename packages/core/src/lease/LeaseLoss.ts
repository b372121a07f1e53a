/**
 * Why a lease ended against its holder's will, from what the store answered.
 *
 * @since 1.0.0
 */
import type { LockRecord } from "../record/LockRecord.js"

/**
 * Why a write on a lease found it gone (the store's `Lost`, with `current` as the store answered): "stolen" when the
 * store names a holder in its place, "freed" when it shows a lock free. A semaphore's store (`permits` given) names
 * nobody: it can not tell a takeover of expired permits from a give-back in their holder's place, and the loss stays
 * "stolen".
 *
 * @since 1.0.0
 * @category constructors
 */
export const goneReason = (permits: number | undefined, current: LockRecord | undefined): "stolen" | "freed" =>
  current === undefined && permits === undefined ? "freed" : "stolen"
