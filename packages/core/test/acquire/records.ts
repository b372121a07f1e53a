// Records as a store shows them, for the decisions of the acquire loops, the lease and the election to judge.
import type { LockRecord } from "../../src/record/LockRecord.js"
import type { PermitHolder, SemaphoreRecord } from "../../src/record/SemaphoreRecord.js"

/** A lock record held by `owner`, with whatever the test overrides. */
export const lockRecord = (overrides: Partial<LockRecord> = {}): LockRecord => ({
  name: "orders/42",
  owner: "other",
  holder: "host-b",
  leaseUntil: 10_000,
  leaseMs: 3_000,
  fence: 7,
  version: 1,
  sequence: 0,
  acquiredAt: 7_000,
  data: undefined,
  reservedBy: undefined,
  reservedUntil: 0,
  reservedSince: 0,
  reservedFrom: 0,
  ...overrides
})

/** A free lock record. */
export const freeRecord = (overrides: Partial<LockRecord> = {}): LockRecord =>
  lockRecord({ owner: undefined, holder: undefined, leaseUntil: 0, acquiredAt: undefined, ...overrides })

/** A semaphore holder. */
export const permitHolder = (overrides: Partial<PermitHolder> = {}): PermitHolder => ({
  owner: "other",
  holder: "host-b",
  permits: 1,
  fence: 3,
  leaseUntil: 10_000,
  leaseMs: 3_000,
  version: 1,
  sequence: 0,
  acquiredAt: 7_000,
  data: undefined,
  ...overrides
})

/** A semaphore record with `holders`, its `used` their sum. */
export const semaphoreRecord = (limit: number, holders: ReadonlyArray<PermitHolder>): SemaphoreRecord => ({
  name: "pool",
  limit,
  fence: holders.reduce((fence, holder) => Math.max(fence, holder.fence), 0),
  used: holders.reduce((used, holder) => used + holder.permits, 0),
  holders
})
