/**
 * What both acquire loops (a lock's, a semaphore's) share about time: when `wait` runs out, the jittered poll, how long
 * a sleep may be before the wait runs out, and how long past `wait` a store call in flight may take.
 *
 * @since 1.0.0
 */

/**
 * How long past `wait` an acquire may take while a store call is in flight: enough for a slow round trip, short
 * enough for callers that size `wait` to a deadline.
 *
 * @since 1.0.0
 * @category constants
 */
export const waitSlackMs = 1000

/**
 * When the wait of an acquire that began at `startedAt` (monotonic ms) runs out: `Infinity` when it waits forever
 * (`waitMs` undefined).
 *
 * @since 1.0.0
 * @category constructors
 */
export const waitUntil = (startedAt: number, waitMs: number | undefined): number =>
  waitMs === undefined ? Infinity : startedAt + waitMs

/**
 * Whether the wait is over at `now`: an acquire that has its answer then stops trying.
 *
 * @since 1.0.0
 * @category predicates
 */
export const isWaitOver = (now: number, waitUntil: number): boolean => now >= waitUntil

/**
 * The jittered poll for a draw `random` of the unit interval: between half the poll interval and the whole of it, at
 * least a millisecond, so that `pollIntervalMs` is the longest sleep between attempts and waiters drift apart.
 *
 * @since 1.0.0
 * @category constructors
 */
export const jitteredPollMs = (pollIntervalMs: number, random: number): number =>
  Math.max(1, Math.round(pollIntervalMs * (0.5 + random / 2)))

/**
 * The sleep before retrying a failed or unusable attempt: `pollMs`, no later than the end of the wait.
 *
 * @since 1.0.0
 * @category constructors
 */
export const retrySleepMs = (pollMs: number, now: number, waitUntil: number): number =>
  Math.max(0, Math.min(pollMs, waitUntil - now))

/**
 * The sleep after a conflict: `ms` as planned, in whole milliseconds, no later than the end of the wait.
 *
 * @since 1.0.0
 * @category constructors
 */
export const conflictSleepMs = (ms: number, now: number, waitUntil: number): number =>
  Math.max(0, Math.round(Math.min(ms, waitUntil - now)))

/**
 * How long an acquire may still run from `begun` (monotonic ms) before a call in flight is abandoned: until
 * `waitSlackMs` after the wait runs out.
 *
 * @since 1.0.0
 * @category constructors
 */
export const timeLeftMs = (waitUntil: number, begun: number): number => Math.max(0, waitUntil + waitSlackMs - begun)

/**
 * How long the caller waited, for the answer of an acquire that gives up at `now`.
 *
 * @since 1.0.0
 * @category getters
 */
export const waitedMs = (startedAt: number, now: number): number => Math.max(0, now - startedAt)
