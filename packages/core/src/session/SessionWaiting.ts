/**
 * How the waiters of one process share their reads of the locks of one live lease session. A process that waits for
 * many locks held under another process's session would read each of them every poll interval: a thousand waiters,
 * a thousand reads per interval, which crowd out the writes that take the locks over once the session dies. Instead
 * they read `readsPerPoll` locks per poll interval between them, each waiter in turn; and every one of them wakes
 * when the session could first be judged dead, whatever its turn, since that judgement is one shared read
 * (`SessionVerdict`).
 *
 * Such a herd does not reserve the locks either (`reserves`). Sleeping longer, and not reserving, writes nothing:
 * every write a waiter makes is conditioned as before, so this changes when a waiter learns of a release, and which
 * waiter is next after it, never who may hold a lock at once. A waiter learns of an ordinary release by a live session up
 * to `ceil(waiters / readsPerPoll)` poll intervals late, and never later than the session's next judgement.
 *
 * @since 1.0.0
 */

/**
 * The lock reads per poll interval that one process's waiters on the locks of one live session make between them.
 *
 * @since 1.0.0
 * @category constants
 */
export const readsPerPoll = 4

/**
 * A waiter's poll interval when `waiters` waiters of its process (itself included) wait on locks of the same live
 * session: `pollMs` for up to `readsPerPoll` of them, and proportionally longer beyond.
 *
 * @since 1.0.0
 * @category constructors
 */
export const pollMs = (pollMs: number, waiters: number): number =>
  waiters <= readsPerPoll ? pollMs : pollMs * (waiters / readsPerPoll)

/**
 * Whether a waiter on a lock of a live session reserves it (see `Reservation`) when `waiters` waiters of its process
 * wait on locks of that session: not beyond `readsPerPoll` of them. A herd that rations its reads rations its writes
 * too: a thousand reservations would cost as many writes for locks whose holder is alive, and the waiters take the
 * locks of a dead session with one write each, reservation or not.
 *
 * @since 1.0.0
 * @category predicates
 */
export const reserves = (waiters: number): boolean => waiters <= readsPerPoll

/**
 * How long a waiter on a lock of a live session sleeps: what its conflict alone would say (`sleepMs`, computed with
 * the shared poll interval), but no longer than until the session could be judged dead.
 *
 * @since 1.0.0
 * @category constructors
 */
export const sleepMs = (sleepMs: number, untilJudgedMs: number): number => Math.min(sleepMs, untilJudgedMs)
