/**
 * Fair handover across processes: the reservation write. When a waiter reserves, for how long, and how long it and
 * those behind it sleep, are decided in `@leasehold/core/acquire/Reservation`. Reservations only make waits fairer: a
 * failed one never fails the acquire, and mutual exclusion never depends on them.
 *
 * @internal
 */
import type { LockRecord } from "@leasehold/core/record/LockRecord"
import * as Effect from "effect/Effect"
import type * as LockStore from "../../LockStore.js"
import * as Metrics from "../process/metrics.js"

/**
 * Reserves, and answers the record to plan the next sleep by: the reserved record, the current one when the
 * reservation was refused (`undefined`: the lock is free, try again at once), or the conflict's when the store
 * failed.
 *
 * @internal
 */
export const reserve = (
  store: LockStore.LockStore,
  request: LockStore.ReserveRequest,
  conflict: LockRecord
): Effect.Effect<LockRecord | undefined> =>
  store.reserve(request).pipe(
    Effect.flatMap((result) =>
      result._tag === "Reserved"
        ? Effect.as(Metrics.increment(Metrics.reservations), result.record)
        : Effect.succeed(result.current)
    ),
    Effect.orElseSucceed(() => conflict)
  )
