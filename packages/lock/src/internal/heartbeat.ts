/**
 * The keeper's loop: renew on the heartbeat, retry a failed renew with backoff until the deadline, and declare the
 * lease lost when the deadline passes or a renew finds another owner.
 *
 * The loop sleeps until its next event: the next renew, the at-risk point, or the deadline. A renew in flight is
 * raced against the deadline (and marks the lease at risk on the way), so a store that hangs can not hold the loss
 * back.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Metric from "effect/Metric"
import type { LockStoreError } from "../LockError.js"
import type * as LockStore from "../LockStore.js"
import { monotonicMillis } from "./clock.js"
import * as LeaseState from "./leaseState.js"
import * as Metrics from "./metrics.js"
import type * as Options from "./options.js"
import * as Watchdog from "./watchdog.js"

/** How often a failed renew is retried, at first; it doubles up to one heartbeat. */
const renewRetryBaseMs = 50

/** A renew's answer, its failure, or the deadline passing while it was in flight. */
type RenewOutcome = Either.Either<LockStore.RenewResult, LockStoreError | "deadline passed during the renew">

const retryDelay = (options: Options.Resolved, failures: number) =>
  Math.min(options.heartbeatMs, renewRetryBaseMs * 2 ** Math.min(failures, 16))

/** One renew call, bounded by the deadline; the time it was sent if it renewed, else `undefined`. */
const renewOnce = (state: LeaseState.LeaseState, store: LockStore.LockStore, options: Options.Resolved) =>
  Effect.gen(function*() {
    const { fence, name, owner } = state
    const sentAt = yield* monotonicMillis
    if (state.finished || state.deadline - sentAt <= 0) return undefined
    const result = yield* Effect.raceFirst<RenewOutcome, never, never, RenewOutcome, never, never>(
      Effect.either(store.renew({ name, owner, fence, leaseMs: options.leaseMs })),
      Effect.map(Watchdog.untilDeadline(state, options), Either.left)
    )
    if (Either.isLeft(result)) {
      yield* Metric.increment(Metrics.renewFailures)
      yield* Effect.logDebug("renew failed; retrying until the lease deadline").pipe(
        Effect.annotateLogs({ lock: name, fence, error: String(result.left) })
      )
      return undefined
    }
    if (result.right._tag === "Lost") {
      yield* LeaseState.declareLost(state, "stolen", result.right.current)
      return undefined
    }
    const renewedDeadline = sentAt + options.leaseMs - options.safetyMarginMs
    const now = yield* monotonicMillis
    // A renew that answered after its own deadline proves nothing about now: leave the deadline to decide.
    if (state.finished || renewedDeadline <= now) return undefined
    state.deadline = Math.max(state.deadline, renewedDeadline)
    if (state.status.unsafeGet()._tag === "AtRisk") yield* state.status.set({ _tag: "Held" })
    return sentAt
  }).pipe(
    Effect.withSpan("Lock.renew", {
      attributes: { "lock.name": state.name, "lock.owner": state.owner, "lock.fence": state.fence },
      captureStackTrace: false
    })
  )

/**
 * Keeps the lease until it is lost or the keeper's fiber is interrupted by the release. `sentAt` is the monotonic time
 * just before the acquiring write was sent: the first renew goes one heartbeat after it, not at once, since that write
 * just set a full lease.
 *
 * @internal
 */
export const keep = (
  state: LeaseState.LeaseState,
  store: LockStore.LockStore,
  options: Options.Resolved,
  sentAt: number
): Effect.Effect<void> =>
  Effect.gen(function*() {
    let failures = 0
    let renewAt = sentAt + options.heartbeatMs
    while (true) {
      if (state.finished) return
      const now = yield* monotonicMillis
      const remaining = state.deadline - now
      if (remaining <= 0) return yield* LeaseState.declareLost(state, "expired", undefined)
      yield* Watchdog.warnIfAtRisk(state, options, remaining)
      if (now >= renewAt) {
        const renewedAt = yield* renewOnce(state, store, options)
        failures = renewedAt === undefined ? failures + 1 : 0
        // Every heartbeat of lease time, counted from when the last renew was sent: round trips do not add up
        // into lateness, and after a renew slower than a beat the next one goes at once.
        renewAt = renewedAt === undefined
          ? (yield* monotonicMillis) + retryDelay(options, failures)
          : renewedAt + options.heartbeatMs
        continue
      }
      yield* Effect.sleep(Duration.millis(Math.max(1, Watchdog.nextWake(state, options, renewAt, now) - now)))
    }
  }).pipe(
    // Fail closed: if the loop ends for any reason but a release, nothing else would declare the loss.
    Effect.ensuring(LeaseState.declareLost(state, "expired", undefined))
  )
