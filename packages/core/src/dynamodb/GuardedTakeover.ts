/**
 * The order of the steps of a takeover by the wall clock under the clock-skew guard (the decisions in each step are
 * `TakeoverGuard`'s): without the guard, or with an estimate that already allows it, one attempt that takes over;
 * otherwise first an attempt that takes nothing over, whose answer measures the clock, and the takeover only when
 * that answer still finds something to take over and the measurement allows it. A lock's expired lease and a
 * semaphore's expired holders go through the same steps.
 *
 * The shell sends each attempt and feeds its result back: `first` says which attempt to send first, `next` what
 * follows a result.
 *
 * @since 1.0.0
 */
import type * as SemaphoreProtocol from "../store/SemaphoreProtocol.js"
import type * as LockRequests from "./LockRequests.js"
import type * as SkewMonitor from "./SkewMonitor.js"
import * as TakeoverGuard from "./TakeoverGuard.js"

/**
 * What the steps ask of one takeover: whether the guard is on, whether the estimate allows it at once, whether a
 * measuring attempt's result still finds something to take over, the verdict after measuring, and why a refused
 * takeover is refused.
 *
 * @since 1.0.0
 * @category models
 */
export interface Guard<R> {
  readonly on: boolean
  readonly trusts: () => boolean
  readonly over: (measured: R) => boolean
  readonly judge: () => TakeoverGuard.Verdict
  readonly refusal: (refused: Exclude<TakeoverGuard.Verdict, { _tag: "TakeOver" }>, measured: R) => string
}

/**
 * The next step: send an attempt (that takes over, or that only measures), answer with a result, or refuse.
 *
 * @since 1.0.0
 * @category models
 */
export type Step<R> =
  | { readonly _tag: "Attempt"; readonly takeOver: boolean }
  | { readonly _tag: "Answer"; readonly result: R }
  | { readonly _tag: "Refuse"; readonly message: string }

const takeOver: Step<never> = { _tag: "Attempt", takeOver: true }

const measure: Step<never> = { _tag: "Attempt", takeOver: false }

/**
 * The first attempt: one that takes over when the guard is off or trusts the estimate, else one that only measures.
 *
 * @since 1.0.0
 * @category steps
 */
export const first = <R>(guard: Guard<R>): Step<R> => !guard.on || guard.trusts() ? takeOver : measure

/**
 * What follows the `result` of the attempt `attempted`.
 *
 * @since 1.0.0
 * @category steps
 */
export const next = <R>(guard: Guard<R>, attempted: { readonly takeOver: boolean }, result: R): Step<R> => {
  if (attempted.takeOver || !guard.over(result)) return { _tag: "Answer", result }
  const verdict = guard.judge()
  return verdict._tag === "TakeOver" ? takeOver : { _tag: "Refuse", message: guard.refusal(verdict, result) }
}

/**
 * What a guard reads: the store's monitor (none: the guard is off) and the clock of the request.
 *
 * @since 1.0.0
 * @category models
 */
export interface Skew {
  readonly monitor: SkewMonitor.Monitor | undefined
  readonly clock: SkewMonitor.ClockReads
}

const trusts = (skew: Skew, maxClockSkewMs: number, now: number) => () =>
  TakeoverGuard.trusts(skew.monitor?.current(), maxClockSkewMs, now, skew.clock.monotonicMillis)

const judge = (skew: Skew, maxClockSkewMs: number) => () =>
  TakeoverGuard.judge(skew.monitor?.current(), maxClockSkewMs, skew.clock.wallMillis, skew.clock.monotonicMillis)

/**
 * The guard of an absolute takeover of lock `name` at `now`: a measuring attempt (free only) finds something to take over when
 * its conflict is with a lease past its time.
 *
 * @since 1.0.0
 * @category guards
 */
export const lock = (
  skew: Skew,
  name: string,
  now: number,
  maxClockSkewMs: number
): Guard<LockRequests.Acquisition> => ({
  on: skew.monitor !== undefined,
  trusts: trusts(skew, maxClockSkewMs, now),
  over: (measured) => TakeoverGuard.isExpiredLease(measured.holder, now, maxClockSkewMs),
  judge: judge(skew, maxClockSkewMs),
  // `over` holds only for a holder.
  refusal: (refused, measured) => TakeoverGuard.lockRefusal(refused, name, measured.holder!)
})

/**
 * The guard of the removal of semaphore `name`'s `expired` holders at `now` (off when there are none to remove): a
 * measuring attempt (removing no one) finds them still to remove when its conflict shows each of them over.
 *
 * @since 1.0.0
 * @category guards
 */
export const semaphore = (
  skew: Skew,
  name: string,
  expired: ReadonlyArray<SemaphoreProtocol.ExpiredPermit>,
  now: number,
  maxClockSkewMs: number
): Guard<SemaphoreProtocol.AcquirePermitsResult> => ({
  on: skew.monitor !== undefined && expired.length > 0,
  trusts: trusts(skew, maxClockSkewMs, now),
  over: (measured) =>
    measured._tag === "Conflict" && measured.current !== undefined &&
    TakeoverGuard.allOver(measured.current, expired, now, maxClockSkewMs),
  judge: judge(skew, maxClockSkewMs),
  refusal: (refused) => TakeoverGuard.semaphoreRefusal(refused, name, expired)
})
