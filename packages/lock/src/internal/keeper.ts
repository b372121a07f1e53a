/**
 * Keeping a held lock: one fiber per lease that renews it on its heartbeat, reports it at risk, declares it lost when
 * its local deadline passes, and is stopped by the release when the lock's scope closes.
 *
 * - Local deadline = (monotonic time just BEFORE the last successful renew was sent) + lease - safetyMargin. Any
 *   other holder can take over no earlier than leaseUntil + maxClockSkew (absolute) or a full unchanged lease after
 *   it first saw our last write (observed), both of which lie after this deadline.
 * - The fiber sleeps until its next event: the next renew, the at-risk point, or the deadline. A renew in flight is
 *   raced against the deadline (and marks the lease at risk on the way), so a store that hangs can not hold the loss
 *   back. That race costs two short-lived fibers, but only once per heartbeat, not per acquisition.
 * - The release does not wait for a renew in flight: it abandons it. A renew that the store applies after the release
 *   changes nothing, being conditional on an owner the release cleared; one applied before is released with the rest.
 * - The caller of the release waits for one release attempt at most; retries, and the whole release of a lease that
 *   was already lost, continue in the background, bounded and logged.
 *
 * @internal
 */
import type * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Metric from "effect/Metric"
import * as Schedule from "effect/Schedule"
import type * as Lock from "../Lock.js"
import { LockLost, type LockStoreError } from "../LockError.js"
import type { LockRecord } from "../LockRecord.js"
import type * as LockStore from "../LockStore.js"
import { monotonicMillis } from "./clock.js"
import * as LeaseUsers from "./leaseUsers.js"
import * as LocalQueue from "./localQueue.js"
import * as Metrics from "./metrics.js"
import type * as Options from "./options.js"
import * as StatusCell from "./statusCell.js"

/** How often a failed renew is retried, at first; it doubles up to one heartbeat. */
const renewRetryBase = Duration.millis(50)
/** A release is tried this many times in all, then left to expire. Only the first attempt holds up the caller. */
const releaseAttempts = 3
/** Between release attempts: 50 ms, then doubling; `retries` more after the first. */
const releaseRetries = (retries: number) =>
  Schedule.intersect(Schedule.exponential(Duration.millis(50)), Schedule.recurs(retries))
/** Each release attempt gets this long before it is abandoned: the longest a release holds up the caller. */
const releaseAttemptTimeout = Duration.seconds(1)

/** A renew's answer, its failure, or the deadline passing while it was in flight. */
type RenewOutcome = Either.Either<LockStore.RenewResult, LockStoreError | "deadline passed during the renew">

/** @internal */
export interface Keeper {
  readonly lease: Lock.Lease
  /** Whether the lease is held (possibly at risk), read synchronously. */
  readonly isLive: () => boolean
  /** Stops the heartbeat, waits for a renew in flight, releases. Never fails. */
  readonly release: Effect.Effect<void>
}

/**
 * Starts keeping `record` alive. `sentAt` is the monotonic time just before the acquiring write was sent. When the
 * lock is lost, `users` are interrupted; when it is released, its borrowers are. The caller must run `release`
 * exactly once: the keeper's fiber is a daemon, stopped by the release and by nothing else.
 *
 * @internal
 */
export const start = (args: {
  readonly store: LockStore.Service
  readonly record: LockRecord
  readonly options: Options.Resolved
  readonly sentAt: number
  readonly users: LeaseUsers.LeaseUsers
}): Effect.Effect<Keeper> =>
  Effect.gen(function*() {
    const { options, record, store, users } = args
    const owner = record.owner!
    const name = record.name
    const fence = record.fence
    const acquiredAtMonotonic = yield* monotonicMillis

    const status = StatusCell.make<Lock.LeaseStatus>(
      { _tag: "Held" },
      (value) => value._tag === "Lost" || value._tag === "Released"
    )
    // Made on first use: few leases are ever awaited, and an Effect Deferred copies Effect's whole prototype.
    let lost: Deferred.Deferred<never, LockLost> | undefined
    const lostSignal = () => {
      if (lost === undefined) {
        lost = Deferred.unsafeMake<never, LockLost>(FiberId.none)
        const current = status.unsafeGet()
        if (current._tag === "Lost") Deferred.unsafeDone(lost, Exit.fail(current.error))
      }
      return lost
    }
    let deadline = args.sentAt + options.leaseMs - options.safetyMarginMs
    /** Set by a loss or by the release; from then on nothing renews and nothing changes the status but the release. */
    let finished = false
    /** Set as the release begins: a lease being given back is no longer entered, though its status is still Held. */
    let releasing = false

    const recordHoldTime = Effect.flatMap(
      monotonicMillis,
      (now) => Metric.update(Metrics.holdTime, now - acquiredAtMonotonic)
    )

    /** The one way into the Lost state; later calls are ignored, so lost never turns back into held. */
    const declareLost = (reason: "expired" | "stolen", by: LockRecord | undefined) =>
      Effect.suspend(() => {
        if (finished) return Effect.void
        finished = true
        const error = new LockLost({ name, owner, fence, reason, by })
        return Effect.all([
          status.set({ _tag: "Lost", error }),
          // After the status: a signal made from here on is made already failed.
          Effect.suspend(() => lost === undefined ? Effect.void : Deferred.fail(lost, error)),
          Metric.increment(Metric.tagged(Metrics.losses, "reason", reason)),
          recordHoldTime,
          Effect.logWarning(error.message).pipe(Effect.annotateLogs({ lock: name, owner, fence })),
          LeaseUsers.interruptOnLoss(users)
        ], { discard: true })
      })

    /** Marks the lease at risk once less than `warnAt` is left; `remaining` is the time to the deadline. */
    const warnIfAtRisk = (remaining: number) =>
      Effect.suspend(() => {
        if (finished || remaining > options.warnAtMs || status.unsafeGet()._tag !== "Held") return Effect.void
        return Effect.zipRight(
          status.set({ _tag: "AtRisk", remainingMs: remaining }),
          Effect.logWarning(`lock "${name}" is at risk: ${remaining} ms of lease left and no renew yet`).pipe(
            Effect.annotateLogs({ lock: name, owner, fence })
          )
        )
      })

    /** Runs next to a renew in flight: warns at the at-risk point, and ends at the deadline. */
    const untilDeadline = (): Effect.Effect<RenewOutcome> =>
      Effect.gen(function*() {
        while (true) {
          const remaining = deadline - (yield* monotonicMillis)
          if (remaining <= 0) return Either.left("deadline passed during the renew")
          yield* warnIfAtRisk(remaining)
          const untilNext = remaining > options.warnAtMs ? remaining - options.warnAtMs : remaining
          yield* Effect.sleep(Duration.millis(Math.max(1, untilNext)))
        }
      })

    // Effects that run once per heartbeat or once per lease are built when they run: a held lease keeps only its
    // state and the keeper's fiber in memory.

    /** One renew call, bounded by the deadline; the time it was sent if it renewed, else `undefined`. */
    const renewOnce = () =>
      Effect.gen(function*() {
        const sentAt = yield* monotonicMillis
        if (finished || deadline - sentAt <= 0) return undefined
        const result = yield* Effect.raceFirst<RenewOutcome, never, never, RenewOutcome, never, never>(
          Effect.either(store.renew({ name, owner, fence, leaseMs: options.leaseMs })),
          untilDeadline()
        )
        if (Either.isLeft(result)) {
          yield* Metric.increment(Metrics.renewFailures)
          yield* Effect.logDebug("renew failed; retrying until the lease deadline").pipe(
            Effect.annotateLogs({ lock: name, fence, error: String(result.left) })
          )
          return undefined
        }
        if (result.right._tag === "Lost") {
          yield* declareLost("stolen", result.right.current)
          return undefined
        }
        const renewedDeadline = sentAt + options.leaseMs - options.safetyMarginMs
        const now = yield* monotonicMillis
        // A renew that answered after its own deadline proves nothing about now: leave the deadline to decide.
        if (finished || renewedDeadline <= now) return undefined
        deadline = Math.max(deadline, renewedDeadline)
        if (status.unsafeGet()._tag === "AtRisk") yield* status.set({ _tag: "Held" })
        return sentAt
      }).pipe(
        Effect.withSpan("Lock.renew", {
          attributes: { "lock.name": name, "lock.owner": owner, "lock.fence": fence },
          captureStackTrace: false
        })
      )

    const retryDelay = (failures: number) =>
      Math.min(options.heartbeatMs, Duration.toMillis(renewRetryBase) * 2 ** Math.min(failures, 16))

    // First renew one heartbeat after the acquiring write was sent, not at once: that write just set a full lease.
    const keep = Effect.gen(function*() {
      let failures = 0
      let renewAt = args.sentAt + options.heartbeatMs
      while (true) {
        if (finished) return
        const now = yield* monotonicMillis
        const remaining = deadline - now
        if (remaining <= 0) return yield* declareLost("expired", undefined)
        yield* warnIfAtRisk(remaining)
        if (now >= renewAt) {
          const renewedAt = yield* renewOnce()
          failures = renewedAt === undefined ? failures + 1 : 0
          // Every heartbeat of lease time, counted from when the last renew was sent: round trips do not add up
          // into lateness, and after a renew slower than a beat the next one goes at once.
          renewAt = renewedAt === undefined
            ? (yield* monotonicMillis) + retryDelay(failures)
            : renewedAt + options.heartbeatMs
          continue
        }
        const warnAt = deadline - options.warnAtMs
        const wakeAt = Math.min(
          renewAt,
          deadline,
          status.unsafeGet()._tag === "Held" && warnAt > now ? warnAt : deadline
        )
        yield* Effect.sleep(Duration.millis(Math.max(1, wakeAt - now)))
      }
    }).pipe(
      // Fail closed: if the loop ends for any reason but a release, nothing else would declare the loss.
      Effect.ensuring(Effect.suspend(() => declareLost("expired", undefined)))
    )

    // Started from the uninterruptible end of an acquire: make the loop interruptible again explicitly.
    const fiber = yield* Effect.forkDaemon(Effect.interruptible(keep))

    const logReleaseFailure = (cause: Cause.Cause<unknown>) =>
      Effect.zipRight(
        Metric.increment(Metrics.releaseFailures),
        Effect.logWarning(`releasing lock "${name}" failed; its lease will expire on its own`, cause).pipe(
          Effect.annotateLogs({ lock: name, owner, fence })
        )
      )

    const reportReleased = (result: LockStore.ReleaseResult) =>
      result._tag === "Released" ? Effect.void : Effect.logInfo(
        `lock "${name}" was no longer ours at release (fence ${fence})`
      ).pipe(Effect.annotateLogs({ lock: name, owner, fence }))

    // The release runs in a finalizer, which is uninterruptible: `interruptible` lets the timeout (which runs the
    // call in a fiber of its own) abandon a call the store never answers.
    const releaseAttempt = () =>
      store.release({ name, owner, fence }).pipe(Effect.interruptible, Effect.timeout(releaseAttemptTimeout))

    const releaseSpan = (background: boolean) => ({
      attributes: { "lock.name": name, "lock.owner": owner, "lock.fence": fence, "lock.background": background },
      captureStackTrace: false
    })

    /** `attempts` release attempts in a daemon fiber, bounded and logged: the caller already has its answer. */
    const releaseInBackground = (attempts: number) =>
      Effect.asVoid(Effect.forkDaemon(
        Effect.retry(releaseAttempt(), releaseRetries(attempts - 1)).pipe(
          Effect.matchCauseEffect({ onSuccess: reportReleased, onFailure: logReleaseFailure }),
          Effect.withSpan("Lock.release", releaseSpan(true))
        )
      ))

    const releaseInStore = (alreadyLost: boolean): Effect.Effect<void> => {
      // A synchronous store can not hang, and a timeout's two fibers would cost more than the whole call.
      if (store.synchronous === true) {
        return store.release({ name, owner, fence }).pipe(
          Effect.matchCauseEffect({ onSuccess: reportReleased, onFailure: logReleaseFailure }),
          Effect.withSpan("Lock.release", releaseSpan(false))
        )
      }
      // Nobody waits for the release of a lease that is already lost: the section has ended, the caller is owed its
      // LockLost, and a store that let the lease expire is likely slow right now.
      if (alreadyLost) return releaseInBackground(releaseAttempts)
      return releaseAttempt().pipe(
        Effect.matchCauseEffect({
          onSuccess: reportReleased,
          onFailure: () => releaseInBackground(releaseAttempts - 1)
        }),
        Effect.withSpan("Lock.release", releaseSpan(false))
      )
    }

    const release = Effect.gen(function*() {
      releasing = true
      // Borrowers first, while the lease is still kept alive: none of them may run once the lock is given back.
      yield* LeaseUsers.stopBorrowers(users)
      finished = true
      yield* Fiber.interrupt(fiber)
      const current = status.unsafeGet()
      // A lock another owner took has nothing to release; one that expired locally may still be ours in the store,
      // and releasing it lets the next holder in before leaseUntil + skew.
      if (!(current._tag === "Lost" && current.error.reason === "stolen")) {
        yield* releaseInStore(current._tag === "Lost")
      }
      if (current._tag !== "Lost") {
        yield* recordHoldTime
        yield* status.set({ _tag: "Released" })
      }
      yield* LocalQueue.leave(store.local, name)
    }).pipe(Effect.uninterruptible)

    const isLive = () => {
      if (releasing) return false
      const tag = status.unsafeGet()._tag
      return tag === "Held" || tag === "AtRisk"
    }

    const lease: Lock.Lease = {
      name,
      owner,
      holder: record.holder ?? options.holder,
      fence,
      data: record.data,
      record,
      status: status.get,
      get changes() {
        return status.changes()
      },
      lost: Effect.suspend(() => Deferred.await(lostSignal())),
      isHeld: Effect.sync(() => isLive())
    }
    return { lease, release, isLive }
  })
