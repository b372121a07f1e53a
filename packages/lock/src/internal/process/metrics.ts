/**
 * The lock's metrics. Names follow the Prometheus convention; lock names are not used as tags, since an application
 * may use unboundedly many (one per entity).
 *
 * @internal
 */
import type * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as EffectLine from "../effectLine.js"

/** Milliseconds from 1 ms to about 9 minutes, doubling. */
const millisBoundaries = { start: 1, factor: 2, count: 20 }

/** @internal */
export const acquisitions = Metric.counter("leasehold_lock_acquisitions_total", {
  description: "Locks acquired",
  incremental: true
})

/** @internal */
export const notAcquired = Metric.counter("leasehold_lock_not_acquired_total", {
  description: "Acquisitions that gave up because another holder kept the lock",
  incremental: true
})

/** @internal */
export const conflicts = Metric.counter("leasehold_lock_conflicts_total", {
  description: "Acquire attempts that found the lock held",
  incremental: true
})

/** @internal */
export const reservations = Metric.counter("leasehold_lock_reservations_total", {
  description: "Reservations a waiter made (or refreshed) to be the next holder of a contended lock",
  incremental: true
})

/** @internal */
export const losses = Metric.counter("leasehold_lock_losses_total", {
  description: "Held locks lost (tag reason: expired, stolen or freed)",
  incremental: true
})

/** @internal */
export const renewFailures = Metric.counter("leasehold_lock_renew_failures_total", {
  description: "Renew attempts that failed with a store error or timed out",
  incremental: true
})

/** @internal */
export const releaseFailures = Metric.counter("leasehold_lock_release_failures_total", {
  description: "Releases that failed after their retries (the lease then expires on its own)",
  incremental: true
})

/** @internal */
export const waitTime = EffectLine.exponentialHistogram(
  "leasehold_lock_wait_time_ms",
  "Time from asking for a lock to holding it",
  millisBoundaries
)

/** @internal */
export const holdTime = EffectLine.exponentialHistogram(
  "leasehold_lock_hold_time_ms",
  "Time from acquiring a lock to releasing or losing it",
  millisBoundaries
)

/**
 * Adds one to a counter: Effect 4's metrics have no `increment` of their own.
 *
 * @internal
 */
export const increment = (counter: typeof acquisitions): Effect.Effect<void> => Metric.update(counter, 1)
