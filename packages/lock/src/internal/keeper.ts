/**
 * Keeping a held lock: the heartbeat that renews it, the watchdog that declares it lost when its local deadline
 * passes, and the release when its scope closes.
 *
 * Two fibers, because a renew can hang: the watchdog must fire at the deadline whatever the store is doing.
 *
 * - Local deadline = (monotonic time just BEFORE the last successful renew was sent) + lease - safetyMargin. Any
 *   other holder can take over no earlier than leaseUntil + maxClockSkew (absolute) or a full unchanged lease after
 *   it first saw our last write (observed), both of which lie after this deadline.
 * - Renews and the release share a one-permit semaphore: the release waits for a renew in flight instead of racing
 *   it. (A late renew could not undo a release anyway, being conditional on an owner the release cleared.)
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Metric from "effect/Metric"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as SubscriptionRef from "effect/SubscriptionRef"
import type * as Lock from "../Lock.js"
import { LockLost } from "../LockError.js"
import type { LockRecord } from "../LockRecord.js"
import type * as LockStore from "../LockStore.js"
import { monotonicMillis } from "./clock.js"
import * as LocalQueue from "./localQueue.js"
import * as Metrics from "./metrics.js"
import type * as Options from "./options.js"

/** How often a failed renew is retried, at first; it doubles up to one heartbeat. */
const renewRetryBase = Duration.millis(50)
/** A release is retried this many times, then left to expire; it must not hold up the program's result for long. */
const releaseRetries = 3
/** Each release attempt gets this long before it is abandoned. */
const releaseAttemptTimeout = Duration.seconds(2)

/** @internal */
export interface Keeper {
  readonly lease: Lock.Lease
  /** Stops the heartbeat, waits for a renew in flight, releases. Never fails. */
  readonly release: Effect.Effect<void>
}

/**
 * Starts keeping `record` alive. `sentAt` is the monotonic time just before the acquiring write was sent.
 * `onLost` runs once, when the lock is lost (not when it is released).
 *
 * @internal
 */
export const start = (args: {
  readonly store: LockStore.Service
  readonly record: LockRecord
  readonly options: Options.Resolved
  readonly sentAt: number
  readonly onLost: (error: LockLost) => Effect.Effect<void>
  readonly scope: Scope.Scope
}): Effect.Effect<Keeper> =>
  Effect.gen(function*() {
    const { onLost, options, record, store } = args
    const owner = record.owner!
    const name = record.name
    const fence = record.fence
    const acquiredAtMonotonic = yield* monotonicMillis

    const status = yield* SubscriptionRef.make<Lock.LeaseStatus>({ _tag: "Held" })
    const lost = yield* Deferred.make<never, LockLost>()
    const permit = yield* Effect.makeSemaphore(1)
    let deadline = args.sentAt + options.leaseMs - options.safetyMarginMs
    let finished = false

    const isFinished = Effect.sync(() => finished)

    /** The one way into the Lost state; later calls are ignored, so lost never turns back into held. */
    const declareLost = (reason: "expired" | "stolen", by: LockRecord | undefined) =>
      Effect.suspend(() => {
        if (finished) return Effect.void
        finished = true
        const error = new LockLost({ name, owner, fence, reason, by })
        return Effect.all([
          SubscriptionRef.set(status, { _tag: "Lost", error }),
          Deferred.fail(lost, error),
          Metric.increment(Metric.tagged(Metrics.losses, "reason", reason)),
          recordHoldTime,
          Effect.logWarning(error.message).pipe(Effect.annotateLogs({ lock: name, owner, fence })),
          onLost(error)
        ], { discard: true })
      })

    const recordHoldTime = Effect.flatMap(
      monotonicMillis,
      (now) => Metric.update(Metrics.holdTime, now - acquiredAtMonotonic)
    )

    /** One renew call, bounded by the deadline; `true` if it renewed. */
    const renewOnce = Effect.gen(function*() {
      const sentAt = yield* monotonicMillis
      const remaining = deadline - sentAt
      if (finished || remaining <= 0) return false
      const result = yield* store.renew({ name, owner, fence, leaseMs: options.leaseMs }).pipe(
        Effect.timeoutFail({
          duration: Duration.millis(remaining),
          onTimeout: () => "timeout" as const
        }),
        Effect.either
      )
      if (result._tag === "Left") {
        yield* Metric.increment(Metrics.renewFailures)
        yield* Effect.logDebug("renew failed; retrying until the lease deadline").pipe(
          Effect.annotateLogs({ lock: name, fence, error: String(result.left) })
        )
        return false
      }
      if (result.right._tag === "Lost") {
        yield* declareLost("stolen", result.right.current)
        return false
      }
      const renewedDeadline = sentAt + options.leaseMs - options.safetyMarginMs
      const now = yield* monotonicMillis
      // A renew that answered after its own deadline proves nothing about now: leave the watchdog to decide.
      if (finished || renewedDeadline <= now) return false
      deadline = Math.max(deadline, renewedDeadline)
      const current = yield* SubscriptionRef.get(status)
      if (current._tag === "AtRisk") yield* SubscriptionRef.set(status, { _tag: "Held" })
      return true
    }).pipe(
      Effect.withSpan("Lock.renew", {
        attributes: { "lock.name": name, "lock.owner": owner, "lock.fence": fence },
        captureStackTrace: false
      })
    )

    const retryDelay = (failures: number) =>
      Duration.min(
        Duration.millis(options.heartbeatMs),
        Duration.times(renewRetryBase, 2 ** Math.min(failures, 16))
      )

    // First renew one heartbeat after acquiring, not at once: the acquiring write just set a full lease.
    const heartbeat = Effect.gen(function*() {
      let failures = 0
      while (true) {
        yield* Effect.sleep(failures === 0 ? Duration.millis(options.heartbeatMs) : retryDelay(failures))
        if (yield* isFinished) return
        const renewed = yield* permit.withPermits(1)(renewOnce)
        failures = renewed ? 0 : failures + 1
      }
    })

    const watchdog = Effect.gen(function*() {
      while (true) {
        if (yield* isFinished) return
        const now = yield* monotonicMillis
        const remaining = deadline - now
        if (remaining <= 0) {
          yield* declareLost("expired", undefined)
          return
        }
        if (remaining <= options.warnAtMs) {
          const current = yield* SubscriptionRef.get(status)
          if (current._tag === "Held") {
            yield* SubscriptionRef.set(status, { _tag: "AtRisk", remainingMs: remaining })
            yield* Effect.logWarning(`lock "${name}" is at risk: ${remaining} ms of lease left and no renew yet`)
              .pipe(Effect.annotateLogs({ lock: name, owner, fence }))
          }
          yield* Effect.sleep(Duration.millis(Math.max(1, remaining)))
        } else {
          yield* Effect.sleep(Duration.millis(Math.max(1, remaining - options.warnAtMs)))
        }
      }
    }).pipe(
      // Fail closed: if the watchdog ends for any reason but a release, nothing else would declare the loss.
      Effect.ensuring(Effect.suspend(() => declareLost("expired", undefined)))
    )

    // Started from the uninterruptible end of an acquire: make the loops interruptible again explicitly.
    const heartbeatFiber = yield* Effect.forkIn(Effect.interruptible(heartbeat), args.scope)
    const watchdogFiber = yield* Effect.forkIn(Effect.interruptible(watchdog), args.scope)

    // The release runs in a finalizer, which is uninterruptible: `interruptible` lets the timeout (which runs the
    // call in a fiber of its own) abandon a call the store never answers.
    const releaseInStore = store.release({ name, owner, fence }).pipe(
      Effect.interruptible,
      Effect.timeout(releaseAttemptTimeout),
      Effect.retry(Schedule.intersect(Schedule.exponential(Duration.millis(50)), Schedule.recurs(releaseRetries - 1))),
      Effect.matchCauseEffect({
        onSuccess: (result) =>
          result._tag === "Released" ? Effect.void : Effect.logInfo(
            `lock "${name}" was no longer ours at release (fence ${fence})`
          ).pipe(Effect.annotateLogs({ lock: name, owner, fence })),
        onFailure: (cause) =>
          Effect.zipRight(
            Metric.increment(Metrics.releaseFailures),
            Effect.logWarning(`releasing lock "${name}" failed; its lease will expire on its own`, cause).pipe(
              Effect.annotateLogs({ lock: name, owner, fence })
            )
          )
      }),
      Effect.withSpan("Lock.release", {
        attributes: { "lock.name": name, "lock.owner": owner, "lock.fence": fence },
        captureStackTrace: false
      })
    )

    const release = Effect.gen(function*() {
      // Waiting for the permit lets a renew in flight finish (it is bounded by the deadline).
      yield* permit.take(1)
      const wasLost = finished
      finished = true
      yield* Fiber.interruptAll([heartbeatFiber, watchdogFiber])
      const current = yield* SubscriptionRef.get(status)
      // A lock another owner took has nothing to release; one that expired locally may still be ours in the store,
      // and releasing it lets the next holder in before leaseUntil + skew.
      const stolen = current._tag === "Lost" && current.error.reason === "stolen"
      if (!stolen) yield* releaseInStore
      if (!wasLost) {
        yield* recordHoldTime
        yield* SubscriptionRef.set(status, { _tag: "Released" })
      }
      yield* LocalQueue.leave(store.local, name)
    }).pipe(Effect.uninterruptible)

    const lease: Lock.Lease = {
      name,
      owner,
      holder: record.holder ?? options.holder,
      fence,
      data: record.data,
      record,
      status: SubscriptionRef.get(status),
      changes: status.changes,
      lost: Deferred.await(lost),
      isHeld: Effect.map(SubscriptionRef.get(status), (s) => s._tag === "Held" || s._tag === "AtRisk")
    }
    return { lease, release }
  })
