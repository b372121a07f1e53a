/**
 * Leasehold on its memory store: the library's own cost per cycle, with no network.
 */
import * as Lock from "@leasehold/lock/Lock"
import * as LockStore from "@leasehold/lock/LockStore"
import * as Effect from "effect/Effect"
import { spread, table } from "./Stats.js"

export interface RoundResult {
  readonly cyclesPerSecond: number
  readonly cpuUsPerCycle: number
}

export const run = (rounds: number, roundMs: number): Promise<Array<RoundResult>> =>
  Effect.runPromise(
    Effect.gen(function*() {
      const results: Array<RoundResult> = []
      // The first round warms the JIT and is not counted.
      for (let round = 0; round <= rounds; round++) {
        const key = `memory-${round}`
        const cpuBefore = process.cpuUsage()
        const started = performance.now()
        const end = started + roundMs
        let cycles = 0
        while (performance.now() < end) {
          // Batches of 100 keep the clock reads out of the cycle cost.
          for (let i = 0; i < 100; i++) yield* Lock.withLock(key, Effect.void)
          cycles += 100
        }
        const seconds = (performance.now() - started) / 1000
        const cpu = process.cpuUsage(cpuBefore)
        if (round > 0) {
          results.push({ cyclesPerSecond: cycles / seconds, cpuUsPerCycle: (cpu.user + cpu.system) / cycles })
        }
      }
      return results
    }).pipe(Effect.provide(LockStore.layerMemory))
  )

/**
 * The machine's speed at Effect's own building blocks, to read the memory store's number against: microseconds per
 * `Effect.fork` + `Fiber.await` of an empty effect.
 */
export const calibrate = (): Promise<number> =>
  Effect.runPromise(Effect.gen(function*() {
    const once = Effect.flatMap(Effect.fork(Effect.void), (fiber) => fiber.await)
    for (let i = 0; i < 1_000; i++) yield* once
    const started = performance.now()
    for (let i = 0; i < 5_000; i++) yield* once
    return (performance.now() - started) * 1000 / 5_000
  }))

export const render = (results: ReadonlyArray<RoundResult>): string =>
  table(["store", "cycles/s", "CPU µs/cycle"], [[
    "Leasehold, memory store",
    spread(results.map((r) => r.cyclesPerSecond), 0),
    spread(results.map((r) => r.cpuUsPerCycle), 1)
  ]])
