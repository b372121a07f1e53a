import type { LockRecord } from "../../src/record/LockRecord.js"
import type { PermitHolder, SemaphoreRecord } from "../../src/record/SemaphoreRecord.js"

/** A free lock record, with `overrides` on top. */
export const lockRecord = (overrides: Partial<LockRecord> = {}): LockRecord => ({
  name: "orders/42",
  owner: undefined,
  holder: undefined,
  leaseUntil: 0,
  leaseMs: 0,
  fence: 0,
  version: 0,
  sequence: 0,
  acquiredAt: undefined,
  data: undefined,
  reservedBy: undefined,
  reservedUntil: 0,
  reservedSince: 0,
  reservedFrom: 0,
  ...overrides
})

/** A holder of one permit, with `overrides` on top. */
export const permitHolder = (overrides: Partial<PermitHolder> = {}): PermitHolder => ({
  owner: "o1",
  holder: "worker-1",
  permits: 1,
  fence: 1,
  leaseUntil: 10_000,
  leaseMs: 5000,
  version: 1,
  sequence: 0,
  acquiredAt: 5000,
  data: undefined,
  ...overrides
})

/** A semaphore record of `holders`, its `used` their permits. */
export const semaphoreRecord = (limit: number, holders: ReadonlyArray<PermitHolder>): SemaphoreRecord => ({
  name: "pool",
  limit,
  used: holders.reduce((sum, holder) => sum + holder.permits, 0),
  fence: Math.max(0, ...holders.map((holder) => holder.fence)),
  holders
})
