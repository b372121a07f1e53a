/**
 * What the store granted each use of a semaphore: a section under `Semaphore.withPermits` never sees its permits'
 * handle, so a simulation learns its fence from the store's answers, below the fault wrapper, where a lost answer is
 * still seen.
 *
 * @since 1.0.0
 */
import type * as SemaphoreProtocol from "../store/SemaphoreProtocol.js"

/**
 * The last acquiring write the store applied for a holder.
 *
 * @since 1.0.0
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
 * @since 1.0.0
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

/**
 * Whether a use of a semaphore can trust what the store granted its holder: `Trusted` if the store granted it
 * permits and its permits' handle (`heldFence`, undefined under `withPermits`, which shows none) holds the same fence;
 * else `Mismatch`, with the message a simulation dies with rather than record a fence it cannot vouch for.
 *
 * @since 1.0.0
 * @category constructors
 */
export const check = (
  use: string,
  heldFence: number | undefined,
  grant: PermitGrant | undefined
):
  | { readonly _tag: "Trusted"; readonly grant: PermitGrant }
  | { readonly _tag: "Mismatch"; readonly message: string } =>
  grant === undefined || (heldFence !== undefined && heldFence !== grant.fence)
    ? {
      _tag: "Mismatch",
      message: `${use} holds permits with fence ${heldFence}, but the store granted its holder ` +
        (grant === undefined ? "none" : `fence ${grant.fence}`)
    }
    : { _tag: "Trusted", grant }
