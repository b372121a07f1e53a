/**
 * What every acquire loop (a lock's, a semaphore's) is wrapped in: the give-back of a write that may have applied when
 * the loop ends without acquiring, and the bound on a store call still in flight when `wait` runs out.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { monotonicMillis } from "./clock.js"

/**
 * How long past `wait` an acquire may take while a store call is in flight: enough for a slow round trip, short
 * enough for callers that size `wait` to a deadline.
 *
 * @internal
 */
export const waitSlack = Duration.seconds(1)

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
  const afterExit = answersAtOnce ? giveBack : Effect.asVoid(Effect.forkDaemon(giveBack))
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
