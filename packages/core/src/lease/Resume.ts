/**
 * Resuming a lease another process handed off: whether the hand-off is still worth a write, and what the resuming
 * write answered. The resume is the store's renew on the hand-off's owner and fence that also moves the lease to a new
 * owner id, so a hand-off resumes once: any later write on it finds the new owner.
 *
 * @since 1.0.0
 */
import * as Checked from "../Checked.js"
import { type LockRecord, payloadProblem } from "../record/LockRecord.js"
import * as Utf8 from "../record/Utf8.js"
import type * as LockProtocol from "../store/LockProtocol.js"

/**
 * Whether a hand-off whose lease runs out at `leaseUntil` (epoch ms) has run out at `wallNow`: conservative, a lease
 * that may have run out is not written to, whatever the store would say.
 *
 * @since 1.0.0
 * @category predicates
 */
export const isExpired = (leaseUntil: number, wallNow: number): boolean => wallNow >= leaseUntil

/**
 * The resumed lease's record from the resuming write's answer, or `undefined` when the lease is gone: a renew that
 * found the lease moved to `newOwner` with the hand-off's `fence` is the same resume retried after its first attempt
 * applied, and is ours.
 *
 * @since 1.0.0
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
 * @since 1.0.0
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

/**
 * Checks what a hand-off's shape does not: its owner and holder are well-formed Unicode. A lone surrogate has no UTF-8
 * form, the form stores keep and compare strings in (DynamoDB stores U+FFFD in its place), so the resuming write,
 * conditional on the owner, could match an owner that is not the hand-off's; the holder is what a record holds.
 *
 * @since 1.0.0
 * @category validation
 */
export const checkOwnerAndHolder = <H extends { readonly owner: string; readonly holder: string }>(
  handoff: H
): Checked.Checked<H> => {
  if (!Utf8.isWellFormed(handoff.owner)) {
    return Checked.invalid(
      "the hand-off's owner is not well-formed Unicode (it holds a lone surrogate), so it has no UTF-8 form and can " +
        "not name the lease's owner in the store; resume the hand-off as Lock.handOff made it"
    )
  }
  const holder = payloadProblem({ holder: handoff.holder, data: undefined })
  return holder === undefined ? Checked.ok(handoff) : Checked.invalid(`the hand-off's ${holder.message}`)
}
