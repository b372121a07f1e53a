/**
 * What both acquire loops (a lock's, a semaphore's) share: the jittered poll's draw, the `LockNotAcquired` they give up
 * with, and what they are wrapped in: the give-back of a write that may have applied when the loop ends without
 * acquiring, and the bound on a store call still in flight when `wait` runs out. The times themselves are computed in
 * `@leasehold/core/acquire/AcquireBound`.
 *
 * @internal
 */
import * as AcquireBound from "@leasehold/core/acquire/AcquireBound"
import type { LockRecord } from "@leasehold/core/record/LockRecord"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import { LockNotAcquired, type PermitShortage } from "../../LockError.js"
import * as Background from "../process/background.js"
import { monotonicMillis } from "../process/clock.js"
import * as Metrics from "../process/metrics.js"

/**
 * The jittered poll, from one draw of `Random.next`: between half the poll interval and the whole of it.
 *
 * @internal
 */
export const jitteredPoll = (pollIntervalMs: number): Effect.Effect<number> =>
  Effect.map(Random.next, (random) => AcquireBound.jitteredPollMs(pollIntervalMs, random))

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
 * How late the last answer came, when an acquire gives up over it: answered too late to use, or still unanswered past
 * the wait's slack.
 *
 * @internal
 */
export type Late = Pick<Shortfall, "answeredAfterMs" | "unansweredAfterMs">

/**
 * Fails with `LockNotAcquired` at `now` (monotonic ms), counted.
 *
 * @internal
 */
export const giveUp = (shortfall: Shortfall, now: number): Effect.Effect<never, LockNotAcquired> =>
  Effect.andThen(
    Metrics.increment(Metrics.notAcquired),
    Effect.fail(
      new LockNotAcquired({
        name: shortfall.name,
        holder: shortfall.holder,
        waitedMs: AcquireBound.waitedMs(shortfall.startedAt, now),
        answeredAfterMs: shortfall.answeredAfterMs,
        unansweredAfterMs: shortfall.unansweredAfterMs,
        permits: shortfall.permits
      })
    )
  )

/**
 * Runs `loop`. If it fails while `mayHaveWritten()` says a write of it may have applied, runs `giveBack`: before the
 * caller hears back from a store that answers at once (as tests expect), in the background from any other. With a
 * finite `wait` (ending at `waitUntil`, monotonic ms) and a store that may hang, abandons the loop `waitSlackMs` after
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
      Effect.timeoutOption(cleaned, Duration.millis(AcquireBound.timeLeftMs(waitUntil, begun))),
      (result) =>
        result._tag === "Some" ? Effect.succeed(result.value) : Effect.flatMap(monotonicMillis, args.unanswered)
    ))
}
