/**
 * How a lease is given back when its scope closes: how many release attempts, how long each may take, which one the
 * caller waits for, which run in the background, and the delays between them. The caller waits for one attempt at
 * most; the rest, and the whole release of a lease that was already lost, run in the background, bounded and logged.
 * Times are ms.
 *
 * @since 1.0.0
 */

/**
 * A release is tried this many times in all, then left to expire: enough to ride out a brief fault, and past that the
 * lease running out frees the lock anyway.
 *
 * @since 1.0.0
 * @category constants
 */
export const attempts = 3

/**
 * The delay before the first retry of a run of attempts; it doubles before each next one: soon, since a waiter may be
 * polling for the lock, yet with time for a passing fault to clear.
 *
 * @since 1.0.0
 * @category constants
 */
export const retryBaseMs = 50

/**
 * How long each attempt may take before it is abandoned: the longest a release holds up its caller.
 *
 * @since 1.0.0
 * @category constants
 */
export const attemptTimeoutMs = 1_000

/**
 * The delays before the retries of a run of `count` attempts: `retryBaseMs`, doubling; the first attempt goes at once.
 *
 * @since 1.0.0
 * @category constructors
 */
export const retryDelaysMs = (count: number): ReadonlyArray<number> =>
  Array.from({ length: Math.max(0, count - 1) }, (_, retry) => retryBaseMs * 2 ** retry)

/**
 * How a release runs.
 *
 * - `Once`: the caller waits for one call, without a bound; a failure is logged. A store that answers at once (the
 *   memory store) can not hang, and a bound's timer would cost more than the whole call.
 * - `CallerFirst`: the caller waits for the first attempt, bounded by `attemptTimeoutMs`; if it fails, the others run
 *   in the background: one at once, then one after each of `retryDelaysMs`.
 * - `Background`: the caller waits for none: every attempt runs in the background, one at once, then one after each of
 *   `retryDelaysMs`, each bounded by `attemptTimeoutMs`. Nobody waits for the release of a lease that is already lost:
 *   the section has ended, the caller is owed its loss, and a store that let the lease expire is likely slow right now.
 *
 * @since 1.0.0
 * @category models
 */
export type Plan =
  | { readonly _tag: "Once" }
  | { readonly _tag: "CallerFirst"; readonly retryDelaysMs: ReadonlyArray<number> }
  | { readonly _tag: "Background"; readonly retryDelaysMs: ReadonlyArray<number> }

/**
 * Plans the release of a lease on a store that `answersAtOnce` or not, `alreadyLost` or not.
 *
 * @since 1.0.0
 * @category constructors
 */
export const plan = (args: { readonly answersAtOnce: boolean; readonly alreadyLost: boolean }): Plan => {
  if (args.answersAtOnce) return { _tag: "Once" }
  if (args.alreadyLost) return { _tag: "Background", retryDelaysMs: retryDelaysMs(attempts) }
  return { _tag: "CallerFirst", retryDelaysMs: retryDelaysMs(attempts - 1) }
}
