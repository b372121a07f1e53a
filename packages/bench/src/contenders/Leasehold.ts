/**
 * Leasehold: `Lock.withLock(name, Effect.void)` on the DynamoDB store, run in one fiber as an Effect program would.
 */
import * as DynamoLockStore from "@leasehold/dynamodb/DynamoLockStore"
import * as Lock from "@leasehold/lock/Lock"
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { clientConfig, type Contender, tables } from "../Contender.js"
import type { ClientConfig } from "../ServerProcess.js"

export const make = (config: ClientConfig): Contender => {
  const runtime = ManagedRuntime.make(
    DynamoLockStore.layer({ tableName: tables.leasehold, clientConfig: clientConfig(config) })
  )
  return {
    name: "Leasehold",
    round: (key, durationMs) =>
      runtime.runPromise(Effect.gen(function*() {
        const latencies: Array<number> = []
        const end = performance.now() + durationMs
        let now = performance.now()
        while (now < end) {
          const start = now
          yield* Lock.withLock(key, Effect.void)
          now = performance.now()
          latencies.push(now - start)
        }
        return latencies
      })),
    close: () => runtime.dispose()
  }
}
