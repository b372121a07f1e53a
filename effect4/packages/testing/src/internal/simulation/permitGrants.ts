/**
 * What the store granted each use of a semaphore: a section under `Semaphore.withPermits` never sees its permits'
 * handle, so the run learns its fence from the store's answers, below the fault wrapper, where a lost answer is still
 * seen.
 *
 * @internal
 */
import type { LockStore } from "@leasehold/lock"
import * as Effect from "effect/Effect"

/**
 * The last acquiring write the store applied for a holder.
 *
 * @internal
 */
export interface PermitGrant {
  readonly fence: number
  /** Permits of holders whose leases were over that the write removed. */
  readonly tookOver: number
}

/**
 * `backing` recording into `grants`, by holder (each section acquires under a holder name of its own).
 *
 * @internal
 */
export const recording = (backing: LockStore.LockStore, grants: Map<string, PermitGrant>): LockStore.LockStore => ({
  ...backing,
  tryAcquirePermits: (request) =>
    Effect.tap(backing.tryAcquirePermits(request), (result) =>
      Effect.sync(() => {
        if (result._tag !== "Acquired") return
        const tookOver = request.expired.reduce((sum, entry) => sum + entry.permits, 0)
        grants.set(request.holder, { fence: result.record.fence, tookOver })
      }))
})
