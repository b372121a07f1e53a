/**
 * A held lease's local deadline: the monotonic time just BEFORE the last successful write that set the lease (the
 * acquire, a renew, a data update, a resume) was sent, plus lease - safetyMargin. Any other holder can take over no
 * earlier than leaseUntil + maxClockSkew (absolute) or a full unchanged lease after it first saw that write
 * (observed), both of which lie after this deadline. Times are milliseconds; deadlines are on the monotonic clock.
 *
 * @since 1.0.0
 */

/**
 * What a lease's deadline depends on of its options.
 *
 * @since 1.0.0
 * @category models
 */
export interface DeadlineOptions {
  readonly leaseMs: number
  readonly safetyMarginMs: number
}

/**
 * The deadline a write sent at `sentAt` sets, if it succeeds.
 *
 * @since 1.0.0
 * @category constructors
 */
export const fromSend = (options: DeadlineOptions, sentAt: number): number =>
  sentAt + options.leaseMs - options.safetyMarginMs

/**
 * Whether a write sent at `sentAt` and answered at `now` still leaves time to rely on the lease: an answer that comes
 * at or after the deadline it sets proves nothing about now, as the lease could already be taken over.
 *
 * @since 1.0.0
 * @category predicates
 */
export const isInTime = (options: DeadlineOptions, sentAt: number, now: number): boolean =>
  fromSend(options, sentAt) > now

/**
 * What a successful renew (or data update) sent at `sentAt` and answered at `now` does to a lease whose deadline is
 * `deadline`: moves it later (never earlier), or nothing when it came too late or the lease has ended meanwhile.
 *
 * @since 1.0.0
 * @category models
 */
export type Renewed =
  | { readonly _tag: "Extended"; readonly deadline: number }
  | { readonly _tag: "TooLate" }

/**
 * @since 1.0.0
 * @category constructors
 */
export const renewed = (args: {
  readonly options: DeadlineOptions
  readonly deadline: number
  readonly finished: boolean
  readonly sentAt: number
  readonly now: number
}): Renewed => {
  const next = fromSend(args.options, args.sentAt)
  if (args.finished || next <= args.now) return { _tag: "TooLate" }
  return { _tag: "Extended", deadline: Math.max(args.deadline, next) }
}

/**
 * Whether the deadline has passed at `now`: the lease may no longer be relied on.
 *
 * @since 1.0.0
 * @category predicates
 */
export const isPast = (deadline: number, now: number): boolean => now >= deadline

/**
 * Whether the store's lease (the local deadline + the safety margin) has run out at `now` too.
 *
 * @since 1.0.0
 * @category predicates
 */
export const isStoreLeaseOver = (deadline: number, safetyMarginMs: number, now: number): boolean =>
  now >= deadline + safetyMarginMs

/**
 * Whether to release a lease found lost at its release. A lock another owner took (`stolen`, `freed`) has nothing to
 * release; one that expired locally may still be ours in the store, however late this process is (paused, or starved
 * of CPU past its whole lease): nobody takes it over before leaseUntil + skew, so releasing it lets the next holder
 * in at once instead. The release is conditioned on owner and fence: once someone else has the lock, it changes
 * nothing, however late it lands. One write saves every waiter the skew bound's wait, and the polls it would cost.
 *
 * @since 1.0.0
 * @category predicates
 */
export const releasesAfterLoss = (reason: "expired" | "stolen" | "freed" | "released" | "handedOff"): boolean =>
  reason === "expired"

/**
 * When the lease runs out as last renewed (the deadline plus the safety margin) on the wall clock that reads `wallNow`
 * at monotonic `now`: never later than the store's `leaseUntil`, which counts from the same write's send.
 *
 * @since 1.0.0
 * @category constructors
 */
export const wallLeaseUntil = (deadline: number, safetyMarginMs: number, now: number, wallNow: number): number =>
  wallNow + deadline + safetyMarginMs - now
