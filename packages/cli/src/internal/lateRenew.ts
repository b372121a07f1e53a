/**
 * When a lease is running late: what `watch` calls "expiring", for a lock's lease and a semaphore holder's alike.
 *
 * @internal
 */

/** Less than this fraction of the lease left means the holder is late with its renew. */
const expiringFraction = 1 / 3

/**
 * Whether less than a third of the lease is left, but some: a holder renews every third of its lease by default, so
 * it is late.
 *
 * @internal
 */
export const isExpiring = (lease: { readonly leaseRemainingMs: number | null; readonly leaseMs: number }): boolean =>
  lease.leaseRemainingMs !== null && lease.leaseRemainingMs >= 0 &&
  lease.leaseRemainingMs < lease.leaseMs * expiringFraction
