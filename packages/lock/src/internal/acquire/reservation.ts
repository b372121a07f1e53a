/**
 * Fair handover across processes: the reservation write. When a waiter reserves, for how long, and how long it and
 * those behind it sleep, are decided in `@leasehold/core/acquire/Reservation`. Reservations only make waits fairer: a
 * failed one never fails the acquire, and mutual exclusion never depends on them.
 *
 * @internal
 */
import type { LockRecord } from "@leasehold/core/record/LockRecord"
import type { SemaphoreRecord } from "@leasehold/core/record/SemaphoreRecord"
import * as Effect from "effect/Effect"
import type { LockStoreError } from "../../LockError.js"
import type * as LockStore from "../../LockStore.js"
import type * as SemaphoreStore from "../../SemaphoreStore.js"
import * as Metrics from "../process/metrics.js"

/**
 * What a reservation write answered, for a lock's record or a semaphore's.
 *
 * @internal
 */
export type Answer<Record> =
  | { readonly _tag: "Reserved"; readonly record: Record }
  | { readonly _tag: "NotReserved"; readonly current: Record | undefined }

/**
 * The record to plan the next sleep by, once `reserving` answered: the reserved record, the current one when the
 * reservation was refused (`undefined`: there is no holder or record, try again at once), or the conflict's when the
 * store failed.
 *
 * @internal
 */
export const settle = <Record>(
  reserving: Effect.Effect<Answer<Record>, LockStoreError>,
  conflict: Record
): Effect.Effect<Record | undefined> =>
  reserving.pipe(
    Effect.flatMap((result) =>
      result._tag === "Reserved"
        ? Effect.as(Metrics.increment(Metrics.reservations), result.record)
        : Effect.succeed(result.current)
    ),
    Effect.orElseSucceed(() => conflict)
  )

/**
 * Reserves a lock, and answers the record to plan the next sleep by (`settle`).
 *
 * @internal
 */
export const reserve = (
  store: LockStore.LockStore,
  request: LockStore.ReserveRequest,
  conflict: LockRecord
): Effect.Effect<LockRecord | undefined> => settle(store.reserve(request), conflict)

/**
 * Reserves a semaphore's record for `permits` of it, and answers the record to plan the next sleep by (`settle`).
 *
 * @internal
 */
export const reservePermits = (
  store: LockStore.LockStore,
  request: SemaphoreStore.ReservePermitsRequest,
  conflict: SemaphoreRecord
): Effect.Effect<SemaphoreRecord | undefined> =>
  settle(
    Effect.map(store.reservePermits(request), (result): Answer<SemaphoreRecord> =>
      result._tag === "Reserved" ? { _tag: "Reserved", record: result.semaphore } : result),
    conflict
  )
