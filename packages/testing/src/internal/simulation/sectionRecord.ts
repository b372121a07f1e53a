/**
 * The record of one planned section (or a child one forked), which a run fills in as the section goes: the public
 * `Simulation.SectionRecord`.
 *
 * @internal
 */
import type { Api } from "../../Simulation.js"

/**
 * How a planned section ended.
 *
 * @internal
 */
export type Outcome =
  | "completed"
  | "lost" // withLock or withPermits failed with LockLost
  | "interrupted" // scoped acquire: the fiber was interrupted (by the loss signal or at the horizon)
  | "notAcquired" // LockNotAcquired, or the Effect.timeout of acquireInTimeout
  | "configError"
  | "storeError"
  | "defect"
  | "unfinished"

/**
 * One planned section (or a child one forked): whether it got the lock, and if so when its critical section ran on
 * the true timeline. A child has index `sections.length + its parent's index`.
 *
 * @internal
 */
export interface SectionRecord {
  readonly index: number
  readonly process: string
  readonly name: string
  readonly api: Api | "child"
  /** Set when the lock was acquired. */
  fence: number | undefined
  start: number | undefined
  end: number | undefined
  outcome: Outcome
  /** True time the planned use ended (acquired or not). */
  finishedAt: number | undefined
  /** The lease status when the section ended: "Held", "Lost(expired)", ... */
  leaseStatus: string | undefined
  detail: string | undefined
  /** True time the lease's status became Lost, while the section ran. */
  lostAt?: number | undefined
  /** True time the use was called (after the section's `at`, or the child's `afterMs`). */
  requestedAt?: number | undefined
  /** A child: the section that forked it. */
  parent?: number | undefined
  /** A child that ran on its parent's lease (re-entered it): its writes count as the parent's. */
  borrowedFrom?: number | undefined
  /** A child: true time its outermost `withLock` ran its body (before the nested uses). */
  outerEnteredAt?: number | undefined
  /** The fence of the `LockLost` the use failed with. */
  lostFence?: number | undefined
  /** The reason of the `LockLost` the use failed with. */
  lostReason?: string | undefined
  /** True time the section handed its lease off, and the time the other process resumed it (see `HandOffSpec`). */
  handedOffAt?: number | undefined
  resumedAt?: number | undefined
  /** A use of a semaphore: the permits it asked for, of its limit. */
  permits?: number | undefined
  limit?: number | undefined
  /** A use of a semaphore: permits of holders whose leases were over that its acquiring write removed. */
  tookOver?: number | undefined
}
