/**
 * The Effect 4 line's worker process for the root bench's uncontended and memory tables. It says `{ ready }`, then
 * answers each message until it is killed:
 * - `RoundRequest`: a round of `Lock.withLock(key, Effect.void)` on the DynamoDB store, in one fiber, as the Effect 3
 *   line's Leasehold row runs it; answered with each cycle's latency and this process's CPU and time over the round;
 * - `MemoryRequest`: the memory store's `withLock` rounds, then the heap per held lease; answered with `Memory`.
 */
import * as Lock from "@leasehold/lock/Lock"
import type * as LockStore from "@leasehold/lock/LockStore"
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as MemoryCycle from "./MemoryCycle.js"
import type { LineRequest, Memory, Round, RoundRequest } from "./Protocol.js"
import * as Store from "./Store.js"

// One store for every round, built on the first, as the Effect 3 line's row keeps one runtime.
let runtime: ManagedRuntime.ManagedRuntime<LockStore.LockStore, unknown> | undefined

const round = async ({ config, round: { durationMs, key } }: RoundRequest): Promise<Round> => {
  runtime ??= ManagedRuntime.make(Store.layer(config))
  const cpuBefore = process.cpuUsage()
  const started = performance.now()
  const latencies = await runtime.runPromise(Effect.gen(function*() {
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
  }))
  const seconds = (performance.now() - started) / 1000
  const cpu = process.cpuUsage(cpuBefore)
  return { latencies, cpuMs: (cpu.user + cpu.system) / 1000, seconds }
}

const memory = async ({ held, roundMs, rounds }: { rounds: number; roundMs: number; held: ReadonlyArray<number> }) => {
  const results = await MemoryCycle.run(rounds, roundMs)
  const heldBytes: Array<number> = []
  for (const n of held) heldBytes.push(await MemoryCycle.heldInOneScope(n))
  return { rounds: results, heldBytes } satisfies Memory
}

const fail = (error: unknown) => {
  console.error(error)
  process.exit(1)
}

process.on("message", (message: LineRequest) => {
  const answer = "round" in message ? round(message) : memory(message.memory)
  answer.then((reply) => process.send?.(reply), fail)
})
process.send?.({ ready: true })
