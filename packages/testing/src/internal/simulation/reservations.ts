/**
 * What reservations do in a simulation: the shared store as one process uses it, recording each reservation made and
 * each acquire of a free lock one refused, on the true timeline.
 *
 * @internal
 */
import type * as History from "@leasehold/core/simulation/History"
import * as Reservations from "@leasehold/core/simulation/Reservations"
import type { LockStore } from "@leasehold/lock"
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as EffectLine from "../effectLine.js"
import type { Timeline } from "./timeline.js"

/**
 * `backing` as `process` uses it, pushing to `records`. Wrapped below the fault wrapper, so the times are those at
 * which the store applied the calls.
 *
 * An acquire built earlier than it was applied (a held one, or a copy the transport sent again) is judged by the store
 * at the time it was built, which `clock`, the process's own, no longer reads: whatever reservation refused it, it
 * was refused as of then, not as of the true time it was applied, so it is not recorded.
 *
 * @internal
 */
export const recording = (
  backing: LockStore.LockStore,
  process: string,
  timeline: Timeline,
  records: Array<History.ReservationRecord>,
  clock: Clock.Clock
): LockStore.LockStore => ({
  ...backing,
  reserve: (request) =>
    Effect.tap(backing.reserve(request), (result) =>
      Effect.sync(() => {
        const record = Reservations.reserved(timeline.now, process, request, result)
        if (record !== undefined) records.push(record)
      })),
  tryAcquire: (request) =>
    Effect.tap(backing.tryAcquire(request), (result) =>
      Effect.clockWith((used) =>
        Effect.sync(() => {
          const judgedNow = EffectLine.currentTimeMillisUnsafe(used) === EffectLine.currentTimeMillisUnsafe(clock)
          const record = Reservations.refused(timeline.now, process, result, judgedNow)
          if (record !== undefined) records.push(record)
        })
      ))
})
