/**
 * The record of one planned use of a lock or a semaphore (or of a child one forked), which a run fills in as the use
 * goes: whether it got the lock, when its critical section ran on the true timeline, and how it ended.
 *
 * @since 1.0.0
 */
import type * as ReadWriteMode from "../record/ReadWriteMode.js"
import type * as Schedule from "./Schedule.js"

/**
 * How a planned section ended.
 *
 * @since 1.0.0
 * @category models
 */
export type Outcome =
  | "completed"
  | "lost" // withLock, withPermits or a Lock.scoped region failed with LockLost
  | "interrupted" // scoped acquire in Effect.scoped: the fiber was interrupted (by the loss signal or at the horizon)
  | "notAcquired" // LockNotAcquired, or the Effect.timeout of acquireInTimeout
  | "configError"
  | "storeError"
  | "defect"
  | "unfinished"

/**
 * A use that is not a planned section's own: a `child` it forked, the other use of its region (`sibling`,
 * `forkedBefore`; see `Schedule.RegionSpec`), or the `bystander`, the outer region's fiber around a detached worker,
 * which takes no lock.
 *
 * @since 1.0.0
 * @category models
 */
export type Role = "child" | "sibling" | "forkedBefore" | "bystander"

/**
 * The record index of use `role` of planned section `index` among `count` planned sections: a child's follows the
 * planned sections', and each other role has a band of its own after that.
 *
 * @since 1.0.0
 * @category constructors
 */
export const indexOf = (role: Role, index: number, count: number): number =>
  (role === "child" ? 1 : role === "bystander" ? 3 : 2) * count + index

/**
 * The record index of the `k`th lock (from 0) that planned section `index` takes together with its own name, among
 * `count` planned sections: a band of its own per `k`, after the bands of `indexOf`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const togetherIndexOf = (k: number, index: number, count: number): number => (4 + k) * count + index

/**
 * One planned section (or a child one forked): whether it got the lock, and if so when its critical section ran on
 * the true timeline. A use of another role has the index `indexOf` gives.
 *
 * @since 1.0.0
 * @category models
 */
export interface SectionRecord {
  readonly index: number
  readonly process: string
  readonly name: string
  readonly api: Schedule.Api | Role
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
  /** A use of a read/write lock (a semaphore of its name, with `permits` of it): whether it read or wrote. */
  mode?: ReadWriteMode.Mode | undefined
  /**
   * A planned use that takes locks together and asks for one store call first (`Schedule.SectionSpec.transaction`),
   * once it ran: whether it ran on the locks that one call took, rather than on locks taken one at a time.
   */
  takenAtOnce?: boolean | undefined
}

/**
 * A new record of a use, not yet started.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (index: number, process: string, name: string, api: SectionRecord["api"]): SectionRecord => ({
  index,
  process,
  name,
  api,
  fence: undefined,
  start: undefined,
  end: undefined,
  outcome: "unfinished",
  finishedAt: undefined,
  leaseStatus: undefined,
  detail: undefined
})

/**
 * The fields of a typed error a history keeps.
 *
 * @since 1.0.0
 * @category models
 */
export interface ErrorFields {
  readonly _tag?: string
  readonly message?: string
  readonly fence?: number
  readonly reason?: string
}

/**
 * The outcome of a use that failed with `error`. An acquire inside `Effect.timeout` that ran out of time was not
 * acquired: Effect 3 fails it with `TimeoutException`, Effect 4 with `TimeoutError`.
 *
 * @since 1.0.0
 * @category outcomes
 */
export const outcomeOfError = (error: ErrorFields): Outcome =>
  error._tag === "LockLost"
    ? "lost"
    : error._tag === "LockNotAcquired" || error._tag === "TimeoutException" || error._tag === "TimeoutError"
    ? "notAcquired"
    : error._tag === "LockStoreError"
    ? "storeError"
    : error._tag === "LockConfigError"
    ? "configError"
    : "defect"

/**
 * `text` with every owner id in it replaced: owners are random per acquisition, and histories must stay comparable
 * between replays.
 *
 * @since 1.0.0
 * @category outcomes
 */
export const withoutOwners = (text: string): string => text.replace(/\b[0-9a-f]{32}\b/g, "<owner>")

/**
 * Notes on `record` that the use failed with `error`: its outcome, the fence and reason of a `LockLost`, and the
 * error's message as detail.
 *
 * @since 1.0.0
 * @category outcomes
 */
export const failWith = (record: SectionRecord, error: ErrorFields): void => {
  record.outcome = outcomeOfError(error)
  if (error._tag === "LockLost") {
    record.lostFence = error.fence
    record.lostReason = error.reason
  }
  record.detail = withoutOwners(error.message ?? String(error))
}

/**
 * A lease status as a history shows it: its tag, and the reason of a loss.
 *
 * @since 1.0.0
 * @category outcomes
 */
export const describeStatus = (
  status: { readonly _tag: string; readonly error?: { readonly reason: string } }
): string => status._tag === "Lost" ? `Lost(${status.error?.reason})` : status._tag
