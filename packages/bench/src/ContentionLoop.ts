/**
 * One contender's loop under contention: acquire `key` (waiting as long as it takes), hold it `holdMs`, release,
 * again, until `endAt` (epoch ms). Records each acquisition's wait. Used by fibers in the bench process and by
 * worker processes alike.
 */
import * as DynamoLockStore from "@leasehold/dynamodb/DynamoLockStore"
import * as Lock from "@leasehold/lock/Lock"
import type * as LockStore from "@leasehold/lock/LockStore"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { clientConfig, tables } from "./Contender.js"
import type { ClientConfig } from "./ServerProcess.js"

export interface LoopOptions {
  readonly key: string
  readonly holdMs: number
  readonly leaseMs: number
  readonly endAt: number
}

/** Waits (ms) of every acquisition one loop made. */
export const loop = (options: LoopOptions): Effect.Effect<Array<number>, unknown, LockStore.LockStore> =>
  Effect.gen(function*() {
    const waits: Array<number> = []
    const section = (askedAt: number) =>
      Effect.zipRight(
        Effect.sync(() => waits.push(performance.now() - askedAt)),
        Effect.sleep(Duration.millis(options.holdMs))
      )
    while (Date.now() < options.endAt) {
      const askedAt = performance.now()
      yield* Lock.withLock(options.key, section(askedAt), {
        lease: Duration.millis(options.leaseMs),
        wait: "forever"
      })
    }
    return waits
  })

export const storeLayer = (config: ClientConfig): Layer.Layer<LockStore.LockStore, unknown> =>
  DynamoLockStore.layer({ tableName: tables.leasehold, clientConfig: clientConfig(config) })
