/**
 * The keeper's loop: renew on the heartbeat, retry a failed renew with backoff until the deadline, and declare the
 * lease lost when the deadline passes or a renew finds another owner.
 *
 * The loop sleeps until its next event: the next renew, the at-risk point, or the deadline. A renew runs in the
 * keeper's own fiber with one watcher beside it (see `watchdog.ts`) that marks the lease at risk and declares it lost
 * at the deadline, so a store that hangs can not hold the loss back.
 *
 * Leases acquired together would renew together on every beat: the first renew goes at a random point in the second
 * half of the first heartbeat, and the later ones one heartbeat after the previous one was sent. Renewing early is
 * always safe; no renew goes later than one heartbeat after the last write that set the lease.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Metric from "effect/Metric"
import * as Random from "effect/Random"
import type * as Tracer from "effect/Tracer"
import type { LockStoreError } from "../LockError.js"
import type * as LockStore from "../LockStore.js"
import { monotonicMillisOf } from "./clock.js"
import * as LeaseState from "./leaseState.js"
import type * as LeaseStore from "./leaseStore.js"
import * as LeaseWrites from "./leaseWrites.js"
import * as Metrics from "./metrics.js"
import type * as Options from "./options.js"
import * as Watchdog from "./watchdog.js"

/** How often a failed renew is retried, at first; it doubles up to one heartbeat. */
const renewRetryBaseMs = 50

const retryDelay = (options: Options.Resolved, failures: number) =>
  Math.min(options.heartbeatMs, renewRetryBaseMs * 2 ** Math.min(failures, 16))

/**
 * When the first renew goes, for `random` a draw of `Random.next` (the unit interval, ends included, since a fixed
 * `Random` may give either end): in the second half of the heartbeat after the acquiring write, never later than a
 * full one.
 *
 * @internal
 */
export const firstRenewAt = (sentAt: number, heartbeatMs: number, random: number): number =>
  sentAt + heartbeatMs - Math.floor(random * (heartbeatMs / 2))

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
  beat.renewAt = now + retryDelay(beat.options, beat.failures)
  if (error === undefined) return Effect.void
  const { fence, name } = beat.state
  return Effect.zipRight(
    Metric.increment(Metrics.renewFailures),
    Effect.logDebug("renew failed; retrying until the lease deadline").pipe(
      Effect.annotateLogs({ lock: name, fence, error: String(error) })
    )
  )
}

/** What a renew sent at `sentAt` answered. */
const renewAnswered = (beat: Beat, sentAt: number) =>
(
  result: Either.Either<LockStore.RenewResult, LockStoreError>
): Effect.Effect<void> =>
  Effect.clockWith((clock) => {
    const { options, state } = beat
    state.renewing = false
    const now = monotonicMillisOf(clock)
    if (Either.isLeft(result)) return renewFailed(beat, now, result.left)
    if (result.right._tag === "Lost") return LeaseState.declareGone(state, result.right.current)
    const renewedDeadline = sentAt + options.leaseMs - options.safetyMarginMs
    // A renew that answered after its own deadline proves nothing about now: leave the deadline to decide.
    if (state.finished || renewedDeadline <= now) return renewFailed(beat, now, undefined)
    state.deadline = Math.max(state.deadline, renewedDeadline)
    beat.failures = 0
    // Every heartbeat of lease time, counted from when the last renew was sent: round trips do not add up into
    // lateness, and after a renew slower than a beat the next one goes at once.
    beat.renewAt = sentAt + options.heartbeatMs
    return state.status.unsafeGet()._tag === "AtRisk" ? state.status.set({ _tag: "Held" }) : Effect.void
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
  return Effect.flatMap(Effect.either(bounded), renewAnswered(beat, sentAt)).pipe(
    Effect.withSpan(store.spans.renew, {
      attributes: { "lock.name": name, "lock.owner": owner, "lock.fence": fence },
      captureStackTrace: false,
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
    const remaining = state.deadline - now
    if (remaining <= 0) return LeaseState.declareLost(state, "expired", undefined)
    const warn = Watchdog.warnIfAtRisk(state, options, remaining)
    const next = now >= beat.renewAt
      ? renewOnce(beat, now)
      : clock.sleep(Duration.millis(Math.max(1, Watchdog.nextWake(state, options, beat.renewAt, now) - now)))
    return Effect.flatMap(warn === Effect.void ? next : Effect.zipRight(warn, next), () => step(beat))
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
    (random) => step(new Beat(state, store, options, parent, firstRenewAt(sentAt, options.heartbeatMs, random)))
  )
