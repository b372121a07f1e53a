/**
 * The timing of a lease's keeper: when the first renew goes, what the keeper does when it wakes (declare the loss,
 * renew, or sleep until its next event), when the next renew goes after an answer, and how a failed renew is retried.
 *
 * Leases acquired together would renew together on every beat: the first renew goes at a random point in the second
 * half of the first heartbeat, and the later ones one heartbeat after the previous one was sent. Renewing early is
 * always safe; no renew goes later than one heartbeat after the last write that set the lease. Times are monotonic ms.
 *
 * @since 1.0.0
 */
import * as Watchdog from "./Watchdog.js"

/** How often a failed renew is retried, at first; it doubles up to one heartbeat. */
const renewRetryBaseMs = 50

/**
 * When the first renew goes, for `random` a draw of the unit interval (ends included): in the second half of the
 * heartbeat after the acquiring write sent at `sentAt`, never later than a full one.
 *
 * @since 1.0.0
 * @category constructors
 */
export const firstRenewAt = (sentAt: number, heartbeatMs: number, random: number): number =>
  sentAt + heartbeatMs - Math.floor(random * (heartbeatMs / 2))

/**
 * When the renew after a successful one sent at `sentAt` goes: every heartbeat of lease time, counted from when the
 * last renew was sent, so that round trips do not add up into lateness, and after a renew slower than a beat the next
 * one goes at once.
 *
 * @since 1.0.0
 * @category constructors
 */
export const nextRenewAt = (sentAt: number, heartbeatMs: number): number => sentAt + heartbeatMs

/**
 * How long after the `failures`-th failed renew in a row the next one goes: `renewRetryBaseMs`, doubling, at most a
 * heartbeat.
 *
 * @since 1.0.0
 * @category constructors
 */
export const retryDelayMs = (heartbeatMs: number, failures: number): number =>
  Math.min(heartbeatMs, renewRetryBaseMs * 2 ** Math.min(failures, 16))

/**
 * What the keeper does when it wakes at `now`, with `remainingMs` to the deadline:
 *
 * - `Expired`: the deadline has passed; the lease is lost.
 * - `Renew`: the renew is due.
 * - `Sleep`: sleep `sleepMs`, until the next renew, the at-risk point or the deadline.
 *
 * @since 1.0.0
 * @category models
 */
export type Step =
  | { readonly _tag: "Expired" }
  | { readonly _tag: "Renew"; readonly remainingMs: number }
  | { readonly _tag: "Sleep"; readonly remainingMs: number; readonly sleepMs: number }

/**
 * Decides the keeper's step; `held` says whether the status is `Held` (not yet at risk) as it wakes.
 *
 * @since 1.0.0
 * @category constructors
 */
export const step = (args: {
  readonly deadline: number
  readonly renewAt: number
  readonly warnAtMs: number
  readonly held: boolean
  readonly now: number
}): Step => {
  const { deadline, now, renewAt } = args
  const remainingMs = deadline - now
  if (remainingMs <= 0) return { _tag: "Expired" }
  if (now >= renewAt) return { _tag: "Renew", remainingMs }
  const wake = Watchdog.nextWakeAt({ deadline, warnAtMs: args.warnAtMs, held: args.held, renewAt, now })
  return { _tag: "Sleep", remainingMs, sleepMs: Math.max(1, wake - now) }
}
