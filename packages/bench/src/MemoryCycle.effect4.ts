/**
 * A `withLock` cycle on the memory store, the library's own cost per cycle with no network, and the heap a held lease
 * takes: the Effect 3 line's bench measures, on the Effect 4 lock.
 */
import * as Lock from "@leasehold/lock/Lock"
import * as LockStore from "@leasehold/lock/LockStore"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as v8 from "node:v8"
import * as vm from "node:vm"
import type { MemoryRound } from "./Protocol.js"

export const run = (rounds: number, roundMs: number): Promise<Array<MemoryRound>> =>
  Effect.runPromise(
    Effect.gen(function*() {
      const results: Array<MemoryRound> = []
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

/** Node's collector, made callable at run time: the worker runs without `--expose-gc`. */
const collectGarbage = (): void => {
  v8.setFlagsFromString("--expose-gc")
  const gc = vm.runInNewContext("gc") as () => void
  // A second pass collects what the first one's finalizers released.
  gc()
  gc()
}

/**
 * Heap bytes per lease when `n` leases are acquired into one scope by one fiber and held there (heartbeats running),
 * as a program that holds a lock per shard does.
 */
export const heldInOneScope = (n: number): Promise<number> =>
  Effect.runPromise(
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      // Warm every code path before the baseline.
      yield* Scope.provide(Lock.acquire("held-warmup"), scope)
      collectGarbage()
      const before = process.memoryUsage().heapUsed
      for (let i = 0; i < n; i++) yield* Scope.provide(Lock.acquire(`held-${i}`), scope)
      collectGarbage()
      const bytes = (process.memoryUsage().heapUsed - before) / n
      yield* Scope.close(scope, Exit.void)
      return bytes
    }).pipe(Effect.provide(LockStore.layerMemory))
  )
