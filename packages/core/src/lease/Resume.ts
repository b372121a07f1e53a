/**
 * Resuming a lease another process handed off: whether the hand-off is still worth a write, and what the resuming
 * write answered. The resume is the store's renew on the hand-off's owner and fence that also moves the lease to a new
 * owner id, so a hand-off resumes once: any later write on it finds the new owner.
 *
 * @since 0.2.0
 */
import * as Checked from "../Checked.js"
import type { LockRecord } from "../record/LockRecord.js"
import type * as LockProtocol from "../store/LockProtocol.js"

/**
 * Whether a hand-off whose lease runs out at `leaseUntil` (epoch ms) has run out at `wallNow`: conservative, a lease
 * that may have run out is not written to, whatever the store would say.
 *
 * @since 0.2.0
 * @category predicates
 */
export const isExpired = (leaseUntil: number, wallNow: number): boolean => wallNow >= leaseUntil

/**
 * The resumed lease's record from the resuming write's answer, or `undefined` when the lease is gone: a renew that
 * found the lease moved to `newOwner` with the hand-off's `fence` is the same resume retried after its first attempt
 * applied, and is ours.
 *
 * @since 0.2.0
 * @category constructors
 */
export const resumedRecord = (
  answer: LockProtocol.RenewResult,
  newOwner: string,
  fence: number
): LockRecord | undefined =>
  answer._tag === "Renewed"
    ? answer.record
    : answer.current?.owner === newOwner && answer.current.fence === fence
    ? answer.current
    : undefined

/**
 * Checks the options of a resumed lease: it keeps the lease duration of its hand-off (`handoffLeaseMs`), whatever the
 * options say, since the store's `leaseUntil` and every observer count with it.
 *
 * @since 0.2.0
 * @category validation
 */
export const checkLease = <A extends { readonly leaseMs: number }>(
  handoffLeaseMs: number,
  options: A
): Checked.Checked<A> =>
  options.leaseMs === handoffLeaseMs
    ? Checked.ok(options)
    : Checked.invalid(
      `a resumed lease keeps the lease of its hand-off (${handoffLeaseMs} ms); got ${options.leaseMs} ms`
    )
