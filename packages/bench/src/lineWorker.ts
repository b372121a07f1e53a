/**
 * A worker process of one of Leasehold's lines for the uncontended and memory tables (`Lines.ts` starts each line's,
 * which runs that line's lock, store and effect). It says `{ ready }`, then answers each message until it is killed:
 * - `RoundRequest`: a round of the Leasehold row's cycles (`Lock.withLock(key, Effect.void)` on the DynamoDB store, in
 *   one fiber), answered with each cycle's latency and this process's CPU and time over the round;
 * - `MemoryRequest`: the memory store's `withLock` rounds, then the heap per held lease; answered with `Memory`.
 */
import type { Contender } from "./Contender.js"
import * as Leasehold from "./contenders/Leasehold.js"
import * as MemoryCycle from "./MemoryCycle.js"
import type { LineRequest, Memory, MemoryRequest, Round, RoundRequest } from "./Protocol.js"

// One store for every round, built on the first, as the bench's own Leasehold row keeps one.
let contender: Contender | undefined

const round = async ({ config, round: { durationMs, key } }: RoundRequest): Promise<Round> => {
  contender ??= Leasehold.make(config)
  const cpuBefore = process.cpuUsage()
  const started = performance.now()
  const latencies = await contender.round(key, durationMs)
  const seconds = (performance.now() - started) / 1000
  const cpu = process.cpuUsage(cpuBefore)
  return { latencies, cpuMs: (cpu.user + cpu.system) / 1000, seconds }
}

const memory = async ({ held, roundMs, rounds }: MemoryRequest["memory"]): Promise<Memory> => {
  const results = await MemoryCycle.run(rounds, roundMs)
  const productionRounds = await MemoryCycle.run(rounds, roundMs, "production")
  const heldBytes: Array<number> = []
  for (const n of held) heldBytes.push(await MemoryCycle.heldInOneScope(n))
  const sessionHeldBytes: Array<number> = []
  for (const n of held) sessionHeldBytes.push(await MemoryCycle.heldInOneScope(n, true))
  return { rounds: results, productionRounds, heldBytes, sessionHeldBytes }
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
