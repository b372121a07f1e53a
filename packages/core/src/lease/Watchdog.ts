/**
 * The deadline side of keeping a lease: when it is at risk (less than `warnAt` left), when the keeper must wake for it,
 * and what the watcher of a renew in flight does, so that a store that hangs can not hold the loss back. Times are
 * monotonic ms.
 *
 * @since 1.0.0
 */

/**
 * Whether to report the lease at risk with `remainingMs` to its deadline: once less than `warnAtMs` is left, while it
 * is still `Held` (`held`) and has not ended (`finished`).
 *
 * @since 1.0.0
 * @category predicates
 */
export const warns = (args: {
  readonly finished: boolean
  readonly held: boolean
  readonly remainingMs: number
  readonly warnAtMs: number
}): boolean => !args.finished && args.remainingMs <= args.warnAtMs && args.held

/**
 * When the keeper should next wake with nothing to do before: the next renew, the at-risk point (while the lease is
 * `held` and that point is still ahead), or the deadline.
 *
 * @since 1.0.0
 * @category constructors
 */
export const nextWakeAt = (args: {
  readonly deadline: number
  readonly warnAtMs: number
  readonly held: boolean
  readonly renewAt: number
  readonly now: number
}): number => {
  const { deadline, now } = args
  const warnAt = deadline - args.warnAtMs
  return Math.min(args.renewAt, deadline, args.held && warnAt > now ? warnAt : deadline)
}

/**
 * What the watcher of a renew in flight does with `remainingMs` to the deadline: declare the loss (and abandon the
 * renew), or sleep `sleepMs` until the at-risk point or the deadline.
 *
 * @since 1.0.0
 * @category models
 */
export type Watch =
  | { readonly _tag: "Expired" }
  | { readonly _tag: "Sleep"; readonly sleepMs: number }

/**
 * @since 1.0.0
 * @category constructors
 */
export const watch = (remainingMs: number, warnAtMs: number): Watch => {
  if (remainingMs <= 0) return { _tag: "Expired" }
  const untilNext = remainingMs > warnAtMs ? remainingMs - warnAtMs : remainingMs
  return { _tag: "Sleep", sleepMs: Math.max(1, untilNext) }
}
