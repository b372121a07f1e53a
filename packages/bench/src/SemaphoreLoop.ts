/**
 * Semaphore permits under contention: every contender loops `Semaphore.withPermits` on one name, one permit each, with
 * a limit of half the contenders, so that at any time half of them hold a permit and the other half wait. Each
 * acquisition is held `holdMs` and given back, until `endAt` (epoch ms); the contention table counts the store calls
 * per acquisition, the waits and each contender's share.
 *
 * A lease that runs out inside the section (its acquire answered so late that little of the lease was left, on a
 * loaded machine) fails that one `withPermits` with `LockLost`: the acquisition is marked lost and the loop goes on,
 * as a service would, so that one late answer does not end the row.
 */
import type * as LockStore from "@leasehold/lock/LockStore"
import * as Semaphore from "@leasehold/lock/Semaphore"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { Acquisition, LoopOptions } from "./Protocol.js"
import * as SectionRecord from "./SectionRecord.js"

/** Half the contenders, and at least one: the holders are as many as the waiters, and the latter never run out. */
export const limitFor = (contenders: number): number => Math.max(1, Math.floor(contenders / 2))

/** Every acquisition one contender made. */
export const loop = (options: LoopOptions): Effect.Effect<Array<Acquisition>, unknown, LockStore.LockStore> =>
  Effect.gen(function*() {
    const acquisitions: Array<Acquisition> = []
    const limit = limitFor(options.contenders)
    while (Date.now() < options.endAt) {
      const askedAt = SectionRecord.timestamp()
      const record = SectionRecord.make(acquisitions, askedAt, options.holdMs)
      // A fresh options object per acquisition, as a caller writing them inline would pass.
      yield* Semaphore.withPermits(options.key, record.section, {
        limit,
        lease: Duration.millis(options.leaseMs),
        wait: "forever"
      }).pipe(
        Effect.catchTag("LockLost", () => record.markLost)
      )
    }
    return acquisitions
  })
