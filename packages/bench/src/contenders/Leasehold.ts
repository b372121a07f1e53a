/**
 * Leasehold: `Lock.withLock(name, Effect.void)` on the DynamoDB store, run in one fiber as an Effect program would.
 */
import * as DynamoLockStore from "@leasehold/dynamodb/DynamoLockStore"
import * as Lock from "@leasehold/lock/Lock"
import type * as LockStore from "@leasehold/lock/LockStore"
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { clientConfig, type Contender, tables } from "../Contender.js"
import type { ClientConfig } from "../Protocol.js"

/** One uncontended cycle of a Leasehold program on `key`. */
export type Cycle = (key: string) => Effect.Effect<void, unknown, LockStore.LockStore>

/** A contender that runs `cycle` in a loop in one fiber, on the DynamoDB store. */
export const cycling = (name: string, cycle: Cycle) => (config: ClientConfig): Contender => {
  const runtime = ManagedRuntime.make(
    DynamoLockStore.layer({ tableName: tables.leasehold, clientConfig: clientConfig(config) })
  )
  return {
    name,
    round: (key, durationMs) =>
      runtime.runPromise(Effect.gen(function*() {
        const latencies: Array<number> = []
        const end = performance.now() + durationMs
        let now = performance.now()
        while (now < end) {
          const start = now
          yield* cycle(key)
          now = performance.now()
          latencies.push(now - start)
        }
        return latencies
      })),
    close: () => runtime.dispose()
  }
}

/** Acquire and release the lock `key`. */
export const cycle: Cycle = (key) => Lock.withLock(key, Effect.void)

export const make = cycling("Leasehold", cycle)
