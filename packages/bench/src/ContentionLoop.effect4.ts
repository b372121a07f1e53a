/**
 * The Effect 4 lock's loop under contention, as the Effect 3 line's bench runs it: acquire `key` (waiting as long as
 * it takes), hold it `holdMs`, release, again, until `endAt` (epoch ms). A lease lost inside the section marks that
 * acquisition lost and the loop goes on.
 */
import * as Lock from "@leasehold/lock/Lock"
import type * as LockStore from "@leasehold/lock/LockStore"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { Acquisition, LoopOptions } from "./Protocol.js"
import * as SectionRecord from "./SectionRecord.js"

/** Every acquisition one loop made. */
export const loop = (options: LoopOptions): Effect.Effect<Array<Acquisition>, unknown, LockStore.LockStore> =>
  Effect.gen(function*() {
    const acquisitions: Array<Acquisition> = []
    const poll = options.pollIntervalMs === undefined ? {} : { pollInterval: Duration.millis(options.pollIntervalMs) }
    while (Date.now() < options.endAt) {
      const askedAt = SectionRecord.timestamp()
      if (options.yieldMs !== undefined && acquisitions.length > 0) {
        yield* Effect.sleep(Duration.millis(options.yieldMs * (0.5 + Math.random())))
      }
      const record = SectionRecord.make(acquisitions, askedAt, options.holdMs)
      // A fresh options object per acquisition, as a caller writing them inline would pass.
      yield* Lock.withLock(options.key, record.section, {
        lease: Duration.millis(options.leaseMs),
        wait: "forever",
        ...poll
      }).pipe(
        Effect.catchTag("LockLost", () => record.markLost)
      )
    }
    return acquisitions
  })
