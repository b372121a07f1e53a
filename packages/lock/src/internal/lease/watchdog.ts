/**
 * The deadline side of keeping a lease: it reports the lease at risk once less than `warnAt` is left, and bounds a
 * renew in flight by the deadline, so that a store that hangs can not hold the loss back. When it warns and wakes is
 * decided in `@leasehold/core/lease/Watchdog`.
 *
 * @internal
 */
import * as WatchdogCore from "@leasehold/core/lease/Watchdog"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as EffectLine from "../effectLine.js"
import type * as Options from "../options/options.js"
import { startAtOnce } from "../process/background.js"
import { monotonicMillisOf } from "../process/clock.js"
import * as Metrics from "../process/metrics.js"
import * as LeaseState from "./leaseState.js"

/**
 * Marks the lease at risk once less than `warnAt` is left; `remaining` is the time to the deadline. `Effect.void`
 * itself when there is nothing to do.
 *
 * @internal
 */
export const warnIfAtRisk = (
  state: LeaseState.LeaseState,
  options: Options.Resolved,
  remaining: number
): Effect.Effect<void> => {
  const held = state.status.getUnsafe()._tag === "Held"
  if (!WatchdogCore.warns({ finished: state.finished, held, remainingMs: remaining, warnAtMs: options.warnAtMs })) {
    return Effect.void
  }
  return Effect.andThen(
    Effect.andThen(state.status.set({ _tag: "AtRisk", remainingMs: remaining }), LeaseState.mirrorToMembers(state)),
    Effect.logWarning(`${LeaseState.describe(state)} is at risk: ${remaining} ms of lease left and no renew yet`).pipe(
      Effect.annotateLogs(LeaseState.annotations(state))
    )
  )
}

/**
 * Watches a renew in flight from a fiber of its own: warns at the at-risk point and, at the deadline, declares the
 * loss and interrupts the keeper, which abandons the renew.
 */
const watch = (
  state: LeaseState.LeaseState,
  options: Options.Resolved,
  keeper: EffectLine.Fiber<unknown, unknown>
): Effect.Effect<void> =>
  Effect.clockWith((clock) => {
    if (state.finished) return Effect.void
    const remaining = state.deadline - monotonicMillisOf(clock)
    const next = WatchdogCore.watch(remaining, options.warnAtMs)
    if (next._tag === "Expired") {
      return Effect.andThen(
        Effect.andThen(Metrics.increment(Metrics.renewFailures), LeaseState.declareLost(state, "expired", undefined)),
        EffectLine.withFiber<void>((self) => Effect.sync(() => EffectLine.interruptUnsafe(keeper, self)))
      )
    }
    return Effect.andThen(
      warnIfAtRisk(state, options, remaining),
      Effect.flatMap(clock.sleep(Duration.millis(next.sleepMs)), () => watch(state, options, keeper))
    )
  })

/**
 * Runs `call` (a renew) in the keeper's fiber with one watcher fiber beside it until it answers: the watcher marks the
 * lease at risk on the way and ends the lease at the deadline. One fiber, where racing the call against a timer
 * would take two and wait for the loser.
 *
 * @internal
 */
export const bound = <A, E>(
  state: LeaseState.LeaseState,
  options: Options.Resolved,
  call: Effect.Effect<A, E>
): Effect.Effect<A, E> =>
  EffectLine.withFiber((keeper) =>
    Effect.flatMap(
      EffectLine.forkDetach(watch(state, options, keeper), startAtOnce),
      (watcher) => Effect.ensuring(call, Effect.sync(() => EffectLine.interruptUnsafe(watcher, keeper)))
    )
  )
