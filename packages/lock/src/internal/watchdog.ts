/**
 * The deadline side of keeping a lease: it reports the lease at risk once less than `warnAt` is left, and bounds a
 * renew in flight by the deadline, so that a store that hangs can not hold the loss back.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { monotonicMillis } from "./clock.js"
import * as LeaseState from "./leaseState.js"
import type * as Options from "./options.js"

/**
 * Marks the lease at risk once less than `warnAt` is left; `remaining` is the time to the deadline.
 *
 * @internal
 */
export const warnIfAtRisk = (
  state: LeaseState.LeaseState,
  options: Options.Resolved,
  remaining: number
): Effect.Effect<void> =>
  Effect.suspend(() => {
    if (state.finished || remaining > options.warnAtMs || state.status.unsafeGet()._tag !== "Held") return Effect.void
    return Effect.zipRight(
      state.status.set({ _tag: "AtRisk", remainingMs: remaining }),
      Effect.logWarning(`lock "${state.name}" is at risk: ${remaining} ms of lease left and no renew yet`).pipe(
        Effect.annotateLogs(LeaseState.annotations(state))
      )
    )
  })

/**
 * Runs next to a renew in flight: warns at the at-risk point, and ends at the deadline.
 *
 * @internal
 */
export const untilDeadline = (
  state: LeaseState.LeaseState,
  options: Options.Resolved
): Effect.Effect<"deadline passed during the renew"> =>
  Effect.gen(function*() {
    while (true) {
      const remaining = state.deadline - (yield* monotonicMillis)
      if (remaining <= 0) return "deadline passed during the renew" as const
      yield* warnIfAtRisk(state, options, remaining)
      const untilNext = remaining > options.warnAtMs ? remaining - options.warnAtMs : remaining
      yield* Effect.sleep(Duration.millis(Math.max(1, untilNext)))
    }
  })

/**
 * When the keeper should next wake with nothing to do before: the next renew, the at-risk point, or the deadline.
 *
 * @internal
 */
export const nextWake = (
  state: LeaseState.LeaseState,
  options: Options.Resolved,
  renewAt: number,
  now: number
): number => {
  const warnAt = state.deadline - options.warnAtMs
  return Math.min(
    renewAt,
    state.deadline,
    state.status.unsafeGet()._tag === "Held" && warnAt > now ? warnAt : state.deadline
  )
}
