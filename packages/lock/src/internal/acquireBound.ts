/**
 * What both acquire loops (a lock's, a semaphore's) share: the jittered poll, the `LockNotAcquired` they give up with,
 * and what they are wrapped in: the give-back of a write that may have applied when the loop ends without acquiring,
 * and the bound on a store call still in flight when `wait` runs out.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Random from "effect/Random"
import { LockNotAcquired, type PermitShortage } from "../LockError.js"
import type { LockRecord } from "../LockRecord.js"
import * as Background from "./background.js"
import { monotonicMillis } from "./clock.js"
import * as Metrics from "./metrics.js"

/**
 * How long past `wait` an acquire may take while a store call is in flight: enough for a slow round trip, short
 * enough for callers that size `wait` to a deadline.
 *
 * @internal
 */
export const waitSlack = Duration.seconds(1)

/**
 * Between half the poll interval and the whole of it: `pollInterval` is the longest sleep between attempts.
 *
 * @internal
 */
export const jitteredPoll = (pollIntervalMs: number): Effect.Effect<number> =>
  Effect.map(Random.next, (r) => Math.max(1, Math.round(pollIntervalMs * (0.5 + r / 2))))

/** How an acquire ended without acquiring, for `LockNotAcquired`'s fields. */
export interface Shortfall {
  readonly name: string
  /** Monotonic ms when the caller began to acquire. */
  readonly startedAt: number
  readonly holder?: LockRecord | undefined
  readonly permits?: PermitShortage | undefined
  readonly answeredAfterMs?: number | undefined
  readonly unansweredAfterMs?: number | undefined
}

/**
 * Fails with `LockNotAcquired` at `now` (monotonic ms), counted.
 *
 * @internal
 */
export const giveUp = (shortfall: Shortfall, now: number): Effect.Effect<never, LockNotAcquired> =>
  Effect.zipRight(
    Metric.increment(Metrics.notAcquired),
    Effect.fail(
      new LockNotAcquired({
        name: shortfall.name,
        holder: shortfall.holder,
        waitedMs: Math.max(0, now - shortfall.startedAt),
        answeredAfterMs: shortfall.answeredAfterMs,
        unansweredAfterMs: shortfall.unansweredAfterMs,
        permits: shortfall.permits
      })
    )
  )

/**
 * Runs `loop`. If it fails while `mayHaveWritten()` says a write of it may have applied, runs `giveBack`: before the
 * caller hears back from a store that answers at once (as tests expect), in the background from any other. With a
 * finite `wait` (ending at `waitUntil`, monotonic ms) and a store that may hang, abandons the loop `waitSlack` after
 * `wait` and fails with `unanswered(now)`.
 *
 * @internal
 */
export const bound = <A, E, E2>(args: {
  readonly loop: Effect.Effect<A, E>
  readonly mayHaveWritten: () => boolean
  readonly giveBack: Effect.Effect<void>
  readonly answersAtOnce: boolean
  readonly waitUntil: number
  readonly unanswered: (now: number) => Effect.Effect<never, E2>
}): Effect.Effect<A, E | E2> => {
  const { answersAtOnce, giveBack, waitUntil } = args
  const afterExit = answersAtOnce ? giveBack : Effect.asVoid(Background.fork(giveBack))
  const cleaned = args.loop.pipe(
    Effect.onExit((exit) => exit._tag === "Failure" && args.mayHaveWritten() ? afterExit : Effect.void)
  )
  // A store that answers at once can not hold a call in flight, and the loop ends by itself at `wait`.
  if (waitUntil === Infinity || answersAtOnce) return cleaned
  return Effect.flatMap(monotonicMillis, (begun) =>
    Effect.flatMap(
      Effect.timeoutOption(cleaned, Duration.millis(Math.max(0, waitUntil + Duration.toMillis(waitSlack) - begun))),
      (result) =>
        result._tag === "Some" ? Effect.succeed(result.value) : Effect.flatMap(monotonicMillis, args.unanswered)
    ))
}
