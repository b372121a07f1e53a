/**
 * What an acquire loop, a lock's or a semaphore's, does after each attempt. Both loops take the same steps after a
 * store failure and after an answer too late to use; what follows a conflict is each loop's own
 * (`LockAttempt.afterConflict`, `PermitAttempt.next`), and comes down to the same two steps: the next attempt at once,
 * or a sleep. Times are monotonic ms.
 *
 * @since 1.0.0
 */
import * as AcquireBound from "./AcquireBound.js"

/**
 * End the acquire with the store's failure.
 *
 * @since 1.0.0
 * @category models
 */
export interface Fail {
  readonly _tag: "Fail"
}

/**
 * Give up with `LockNotAcquired`: the wait is over, after an answer that came `answeredAfterMs` after its send.
 *
 * @since 1.0.0
 * @category models
 */
export interface GiveUp {
  readonly _tag: "GiveUp"
  readonly answeredAfterMs: number
}

/**
 * The next attempt at once.
 *
 * @since 1.0.0
 * @category models
 */
export interface Again {
  readonly _tag: "Again"
}

/**
 * Sleep `sleepMs`, or a fresh jittered poll when it is `undefined`, no later than the end of the wait; then the next
 * attempt.
 *
 * @since 1.0.0
 * @category models
 */
export interface Sleep {
  readonly _tag: "Sleep"
  readonly sleepMs: number | undefined
}

/**
 * Give the write back by owner, go on with a fresh owner id (so that the give-back, however late it lands, frees
 * nothing acquired since), and then give up or sleep, as `then` says.
 *
 * @since 1.0.0
 * @category models
 */
export interface GiveBack {
  readonly _tag: "GiveBack"
  readonly then: GiveUp | Sleep
}

/**
 * What an acquire loop does after an attempt that did not acquire.
 *
 * @since 1.0.0
 * @category models
 */
export type Step = Fail | GiveBack | Again | Sleep

/** A jittered poll, drawn when the loop sleeps. */
const poll: Sleep = { _tag: "Sleep", sleepMs: undefined }

/**
 * After a store failure at `now`: fail when it is not `retryable` or the wait is over, else retry after a poll. The
 * write may have applied: the retry goes with the same owner id, which recognises its own record.
 *
 * @since 1.0.0
 * @category constructors
 */
export const afterFailure = (retryable: boolean, now: number, waitUntil: number): Fail | Sleep =>
  !retryable || AcquireBound.isWaitOver(now, waitUntil) ? { _tag: "Fail" } : poll

/**
 * After an answer at `now` that was ours but came `answeredAfterMs` after its send, too late to use: give it back, and
 * then give up if the wait is over, else retry after a poll.
 *
 * @since 1.0.0
 * @category constructors
 */
export const afterTooLate = (answeredAfterMs: number, now: number, waitUntil: number): GiveBack => ({
  _tag: "GiveBack",
  then: AcquireBound.isWaitOver(now, waitUntil) ? { _tag: "GiveUp", answeredAfterMs } : poll
})
