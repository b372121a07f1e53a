/**
 * Leasehold's loop under contention: acquire `key` (waiting as long as it takes), hold it `holdMs`, release, again,
 * until `endAt` (epoch ms). Records each acquisition. Used by fibers in the bench process and by worker processes
 * alike.
 */
import * as DynamoLockStore from "@leasehold/dynamodb/DynamoLockStore"
import * as Lock from "@leasehold/lock/Lock"
import type * as LockStore from "@leasehold/lock/LockStore"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { clientConfig, tables } from "./Contender.js"
import type { Acquisition, LoopOptions } from "./ContentionDriver.js"
import type { ClientConfig } from "./ServerProcess.js"

/** Every acquisition one loop made. */
export const loop = (options: LoopOptions): Effect.Effect<Array<Acquisition>, unknown, LockStore.LockStore> =>
  Effect.gen(function*() {
    const acquisitions: Array<Acquisition> = []
    const section = (askedAt: number) =>
      Effect.zipRight(
        Effect.sync(() => acquisitions.push({ askedAt, enteredAt: performance.timeOrigin + performance.now() })),
        Effect.sleep(Duration.millis(options.holdMs))
      )
    const poll = options.pollIntervalMs === undefined ? {} : { pollInterval: Duration.millis(options.pollIntervalMs) }
    while (Date.now() < options.endAt) {
      const askedAt = performance.timeOrigin + performance.now()
      if (options.yieldMs !== undefined && acquisitions.length > 0) {
        yield* Effect.sleep(Duration.millis(options.yieldMs * (0.5 + Math.random())))
      }
      // A fresh options object per acquisition, as a caller writing them inline would pass.
      yield* Lock.withLock(options.key, section(askedAt), {
        lease: Duration.millis(options.leaseMs),
        wait: "forever",
        ...poll
      })
    }
    return acquisitions
  })

export const storeLayer = (config: ClientConfig): Layer.Layer<LockStore.LockStore, unknown> =>
  DynamoLockStore.layer({ tableName: tables.leasehold, clientConfig: clientConfig(config) })
