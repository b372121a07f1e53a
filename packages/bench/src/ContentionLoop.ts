/**
 * Leasehold's loop under contention: acquire `key` (waiting as long as it takes), hold it `holdMs`, release, again,
 * until `endAt` (epoch ms). Records each acquisition. Used by fibers in the bench process and by worker processes
 * alike.
 *
 * A lease that runs out inside the section (a paused VM, or an acquire answered so late on a loaded machine that little
 * of the lease was left) fails that one `withLock` with `LockLost`: a correct outcome, so the acquisition is marked
 * lost and the loop goes on, as a service would, and the contention table counts it.
 */
import * as DynamoLockStore from "@leasehold/dynamodb/DynamoLockStore"
import * as Lock from "@leasehold/lock/Lock"
import type * as LockStore from "@leasehold/lock/LockStore"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { clientConfig, tables } from "./Contender.js"
import type { Acquisition, ClientConfig, LoopOptions } from "./Protocol.js"
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

export const storeLayer = (config: ClientConfig): Layer.Layer<LockStore.LockStore, unknown> =>
  DynamoLockStore.layer({ tableName: tables.leasehold, clientConfig: clientConfig(config) })
