/**
 * What the store granted each use of a semaphore: a section under `Semaphore.withPermits` never sees its permits'
 * handle, so the run learns its fence from the store's answers, below the fault wrapper, where a lost answer is still
 * seen.
 *
 * @internal
 */
import * as PermitGrant from "@leasehold/core/simulation/PermitGrant"
import type { LockStore } from "@leasehold/lock"
import * as Effect from "effect/Effect"

/**
 * `backing` recording into `grants`, by holder (each section acquires under a holder name of its own).
 *
 * @internal
 */
export const recording = (
  backing: LockStore.LockStore,
  grants: Map<string, PermitGrant.PermitGrant>
): LockStore.LockStore => ({
  ...backing,
  tryAcquirePermits: (request) =>
    Effect.tap(backing.tryAcquirePermits(request), (result) =>
      Effect.sync(() => {
        const grant = PermitGrant.ofAnswer(request, result)
        if (grant !== undefined) grants.set(request.holder, grant)
      }))
})
