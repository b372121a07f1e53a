/**
 * The keeper's loop: renew on the heartbeat, retry a failed renew with backoff until the deadline, and declare the
 * lease lost when the deadline passes or a renew finds another owner. Its timing (when the first renew goes, what a
 * wake leads to, the retries' back-off) is decided in `@leasehold/core/lease/Heartbeat`.
 *
 * The loop sleeps until its next event: the next renew, the at-risk point, or the deadline. A renew runs in the
 * keeper's own fiber with one watcher beside it (see `watchdog.ts`) that marks the lease at risk and declares it lost
 * at the deadline, so a store that hangs can not hold the loss back.
 *
 * @internal
 */
import * as Heartbeat from "@leasehold/core/lease/Heartbeat"
import * as LeaseDeadline from "@leasehold/core/lease/LeaseDeadline"
import type * as LockProtocol from "@leasehold/core/store/LockProtocol"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import type * as Tracer from "effect/Tracer"
import type { LockStoreError } from "../../LockError.js"
import * as EffectLine from "../effectLine.js"
import type * as Options from "../options/options.js"
import { type Outcome, outcome } from "../outcome.js"
import { monotonicMillisOf } from "../process/clock.js"
import * as Metrics from "../process/metrics.js"
import * as LeaseState from "./leaseState.js"
import type * as LeaseStore from "./leaseStore.js"
import * as LeaseWrites from "./leaseWrites.js"
import * as Watchdog from "./watchdog.js"

/** What the loop keeps between wakes. */
class Beat {
  renewAt: number
  failures = 0
  constructor(
    readonly state: LeaseState.LeaseState,
    readonly store: LeaseStore.LeaseStore,
    readonly options: Options.Resolved,
    /** What the renews' spans are children of. */
    readonly parent: Tracer.AnySpan | undefined,
    renewAt: number
  ) {
    this.renewAt = renewAt
  }
}

const renewFailed = (beat: Beat, now: number, error: LockStoreError | undefined): Effect.Effect<void> => {
  beat.failures += 1
  beat.renewAt = now + Heartbeat.retryDelayMs(beat.options.heartbeatMs, beat.failures)
  if (error === undefined) return Effect.void
  const { fence, name } = beat.state
  return Effect.andThen(
    Metrics.increment(Metrics.renewFailures),
    Effect.logDebug("renew failed; retrying until the lease deadline").pipe(
      Effect.annotateLogs({ lock: name, fence, error: String(error) })
    )
  )
}

/** What a renew sent at `sentAt` answered. */
const renewAnswered = (beat: Beat, sentAt: number) =>
(
  result: Outcome<LockProtocol.RenewResult, LockStoreError>
): Effect.Effect<void> =>
  Effect.clockWith((clock) => {
    const { options, state } = beat
    state.renewing = false
    const now = monotonicMillisOf(clock)
    if (result._tag === "Failure") return renewFailed(beat, now, result.failure)
    if (result.success._tag === "Lost") return LeaseState.declareGone(state, result.success.current)
    const renewed = LeaseDeadline.renewed({ options, deadline: state.deadline, finished: state.finished, sentAt, now })
    // A renew that answered after its own deadline proves nothing about now: leave the deadline to decide.
    if (renewed._tag === "TooLate") return renewFailed(beat, now, undefined)
    state.deadline = renewed.deadline
    beat.failures = 0
    beat.renewAt = Heartbeat.nextRenewAt(sentAt, options.heartbeatMs)
    const held = state.status.getUnsafe()._tag === "AtRisk" ? state.status.set({ _tag: "Held" }) : Effect.void
    return state.members === undefined ? held : Effect.andThen(held, LeaseState.mirrorToMembers(state))
  })

/**
 * One renew call, bounded by the deadline. It waits for a data update in flight (`leaseWrites.ts`): `sentAt`, read
 * before that wait, is then earlier than the send, which only makes the deadline it sets earlier.
 */
const renewOnce = (beat: Beat, sentAt: number): Effect.Effect<void> => {
  const { options, state, store } = beat
  const { fence, name, owner } = state
  state.renewing = true
  const call = LeaseWrites.oneAtATime(
    state,
    (sequence) => store.renew({ name, owner, fence, leaseMs: options.leaseMs, sequence })
  )
  // A store that answers at once can not hang, and the watcher would cost more than the call.
  const bounded = store.answersAtOnce ? call : Watchdog.bound(state, options, call)
  return Effect.flatMap(outcome(bounded), renewAnswered(beat, sentAt)).pipe(
    EffectLine.withSpan(store.spans.renew, {
      attributes: { "lock.name": name, "lock.owner": owner, "lock.fence": fence },
      ...(beat.parent === undefined ? {} : { parent: beat.parent })
    })
  )
}

const step = (beat: Beat): Effect.Effect<void> =>
  Effect.clockWith((clock) => {
    const { options, state } = beat
    // A hand-off stops the loop here, after the answer of a renew in flight.
    if (state.finished || state.handOff !== undefined) return Effect.void
    const now = monotonicMillisOf(clock)
    const next = Heartbeat.step({
      deadline: state.deadline,
      renewAt: beat.renewAt,
      warnAtMs: options.warnAtMs,
      held: state.status.getUnsafe()._tag === "Held",
      now
    })
    if (next._tag === "Expired") return LeaseState.declareLost(state, "expired", undefined)
    const warn = Watchdog.warnIfAtRisk(state, options, next.remainingMs)
    const then = next._tag === "Renew" ? renewOnce(beat, now) : clock.sleep(Duration.millis(next.sleepMs))
    return Effect.flatMap(warn === Effect.void ? then : Effect.andThen(warn, then), () => step(beat))
  })

/**
 * Keeps the lease until it is lost or the keeper's fiber is interrupted by the release. `sentAt` is the monotonic time
 * just before the acquiring write was sent: that write just set a full lease, so no renew goes at once. The caller
 * declares the loss if the loop ends any other way.
 *
 * @internal
 */
export const keep = (
  state: LeaseState.LeaseState,
  store: LeaseStore.LeaseStore,
  options: Options.Resolved,
  sentAt: number,
  parent: Tracer.AnySpan | undefined
): Effect.Effect<void> =>
  Effect.flatMap(
    Random.next,
    (random) =>
      step(new Beat(state, store, options, parent, Heartbeat.firstRenewAt(sentAt, options.heartbeatMs, random)))
  )
