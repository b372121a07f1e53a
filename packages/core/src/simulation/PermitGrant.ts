/**
 * What the store granted each use of a semaphore: a section under `Semaphore.withPermits` never sees its permits'
 * handle, so a simulation learns its fence from the store's answers, below the fault wrapper, where a lost answer is
 * still seen.
 *
 * @since 0.2.0
 */
import type * as SemaphoreProtocol from "../store/SemaphoreProtocol.js"

/**
 * The last acquiring write the store applied for a holder.
 *
 * @since 0.2.0
 * @category models
 */
export interface PermitGrant {
  readonly fence: number
  /** Permits of holders whose leases were over that the write removed. */
  readonly tookOver: number
}

/**
 * What the store granted `request`'s holder, if it acquired (`result` is `Acquired`).
 *
 * @since 0.2.0
 * @category constructors
 */
export const ofAnswer = (
  request: SemaphoreProtocol.AcquirePermitsRequest,
  result: SemaphoreProtocol.AcquirePermitsResult
): PermitGrant | undefined => {
  if (result._tag !== "Acquired") return undefined
  const tookOver = request.expired.reduce((sum, entry) => sum + entry.permits, 0)
  return { fence: result.record.fence, tookOver }
}
