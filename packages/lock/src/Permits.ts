/**
 * Held permits of a semaphore: the handle `Semaphore.acquire` returns, with their fencing token and where they
 * stand.
 *
 * @since 1.0.0
 */
import type * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import type { LeaseStatus } from "./Lease.js"
import type { LockLost } from "./LockError.js"
import type { LockRecord } from "./LockRecord.js"

/**
 * Permits of a semaphore, held under one lease: kept alive by a heartbeat, lost as a lock's lease is (then `LockLost`
 * names the semaphore), given back when their scope closes. `status` is never `HandedOff`: permits are not handed
 * over.
 *
 * @since 1.0.0
 * @category models
 */
export interface Permits {
  /** The semaphore's name. */
  readonly name: string
  /** Random per acquisition. */
  readonly owner: string
  readonly holder: string
  /** How many of the semaphore's permits this acquisition holds. */
  readonly permits: number
  /** The semaphore's limit: no more than this many permits of the name are held at once, across all processes. */
  readonly limit: number
  /**
   * The fencing token of this acquisition: greater than that of every earlier acquisition of the semaphore, whoever
   * made it. Pass it to downstream systems, as a lock's.
   */
  readonly fence: number
  /** The data stored with the permits (`SemaphoreOptions.data`). */
  readonly data: string | undefined
  /** This acquisition's entry in the semaphore's record as the acquiring write left it, as a lock's record. */
  readonly record: LockRecord
  /** The current status. */
  readonly status: Effect.Effect<LeaseStatus>
  /** The current status, then every change. */
  readonly changes: Stream.Stream<LeaseStatus>
  /** Whether the permits are held (possibly at risk). */
  readonly isHeld: Effect.Effect<boolean>
  /** Waits until the permits are lost, and fails with the reason. Never completes if they are released first. */
  readonly lost: Effect.Effect<never, LockLost>
}
