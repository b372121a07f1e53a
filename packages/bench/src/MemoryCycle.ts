/**
 * A `withLock` cycle on the memory store, the library's own cost per cycle with no network, and the heap a held lease
 * takes: measured in the bench process, and in each line's worker (`lineWorker.ts`).
 */
import * as LeaseSession from "@leasehold/lock/LeaseSession"
import * as Lock from "@leasehold/lock/Lock"
import * as LockStore from "@leasehold/lock/LockStore"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as v8 from "node:v8"
import * as vm from "node:vm"
import * as EffectLine from "./effectLine.js"
import type { MemoryRound } from "./Protocol.js"
import { fixed, spread, table } from "./Stats.js"

/**
 * Which memory store a run cycles on: the store itself, which answers in the same tick and so skips the guards against
 * a slow store (the watchdog on a renew in flight, the release's time limit, the background give-back of an abandoned
 * acquire), or the same store behind `LockStore.intercept`, which the lock layer takes for any other store and so
 * runs through every path a DynamoDB store takes.
 */
export type Paths = "memory" | "production"

const storeLayer = (paths: Paths): Layer.Layer<LockStore.LockStore> =>
  paths === "memory"
    ? LockStore.layerMemory
    : Layer.effect(LockStore.LockStore, Effect.sync(() => LockStore.intercept(LockStore.makeMemory(), (_, run) => run)))

export const run = (rounds: number, roundMs: number, paths: Paths = "memory"): Promise<Array<MemoryRound>> =>
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
    }).pipe(Effect.provide(storeLayer(paths)))
  )

/** What `calibrate` measures, in CPU microseconds per iteration. */
export interface Calibration {
  /** One `Effect.forkChild` (`Effect.fork` on Effect 3) + `Fiber.await` of an empty effect. */
  readonly forkMicros: number
  /**
   * The least a cycle of `withLock`'s shape can cost with no lock logic at all: the store's two calls, a
   * heartbeat fiber forked and interrupted, the section forked and awaited, and two spans (acquire, release).
   */
  readonly shapeFloorMicros: number
}

const cpuMicrosPer = (iterations: number, once: Effect.Effect<unknown, unknown>) =>
  Effect.gen(function*() {
    for (let i = 0; i < iterations / 5; i++) yield* once
    const before = process.cpuUsage()
    for (let i = 0; i < iterations; i++) yield* once
    const cpu = process.cpuUsage(before)
    return (cpu.user + cpu.system) / iterations
  })

/**
 * The machine's speed at Effect's own building blocks, to read the memory store's number against.
 */
export const calibrate = (): Promise<Calibration> => {
  const store = LockStore.makeMemory()
  const name = "calibrate"
  // The lock's defaults: a 30 s lease, absolute takeover with 10 s of clock skew.
  const takeover = { _tag: "Absolute", maxClockSkewMs: 10_000 } as const
  const request = { name, owner: name, holder: name, leaseMs: 30_000, data: undefined, takeover }
  const span = <A, E>(name: string, effect: Effect.Effect<A, E>) =>
    Effect.withSpan(effect, name, { captureStackTrace: false })
  const shape = span("acquire", store.tryAcquire(request)).pipe(
    Effect.andThen(EffectLine.forkDetach(Effect.interruptible(Effect.never))),
    Effect.flatMap((heartbeat) =>
      Effect.flatMap(EffectLine.forkChild(Effect.void), Fiber.await).pipe(
        Effect.andThen(Fiber.interrupt(heartbeat)),
        Effect.andThen(span("release", store.release({ name: request.name, owner: request.owner, fence: undefined })))
      )
    )
  )
  return Effect.runPromise(Effect.gen(function*() {
    const forkMicros = yield* cpuMicrosPer(5_000, Effect.flatMap(EffectLine.forkChild(Effect.void), Fiber.await))
    const shapeFloorMicros = yield* cpuMicrosPer(5_000, shape)
    return { forkMicros, shapeFloorMicros }
  }))
}

/** Node's collector, made callable at run time: the bench and its line workers run without `--expose-gc`. */
const collectGarbage = (): void => {
  v8.setFlagsFromString("--expose-gc")
  const gc = vm.runInNewContext("gc") as () => void
  // A second pass collects what the first one's finalizers released.
  gc()
  gc()
}

/**
 * Within this, two readings of a collected heap count as the same: spread over the 1,000 or more leases a measure
 * holds, under 64 bytes each.
 */
const settledWithinBytes = 64 * 1024

/**
 * The heap in use once it has settled: collected, then again after the event loop has run, until two readings agree.
 * Work an earlier measure left behind (fibers still being interrupted, timers and sockets closing, finalizers) ends a
 * turn or more of the loop later; a reading taken before it ends counts its memory against whatever comes next.
 */
const settledHeapUsed = Effect.promise(async () => {
  let previous = Number.POSITIVE_INFINITY
  for (let reading = 0; reading < 20; reading++) {
    collectGarbage()
    const used = process.memoryUsage().heapUsed
    if (Math.abs(previous - used) <= settledWithinBytes) return used
    previous = used
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  return previous
})

/**
 * Heap bytes per lease when `n` leases are acquired into one scope by one fiber and held there (heartbeats running),
 * as a program that holds a lock per shard does; with `session`, all under one lease session opened first.
 */
export const heldInOneScope = (n: number, session = false): Promise<number> =>
  Effect.runPromise(
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const inScope = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provideService(effect, Scope.Scope, scope)
      const opened = session ? yield* inScope(LeaseSession.make()) : undefined
      const acquire = (name: string) =>
        opened === undefined
          ? inScope(Lock.acquire(name))
          : inScope(Effect.provideService(Lock.acquire(name), LeaseSession.CurrentLeaseSession, opened))
      // Warm every code path before the baseline.
      yield* acquire("held-warmup")
      const before = yield* settledHeapUsed
      for (let i = 0; i < n; i++) yield* acquire(`held-${i}`)
      const bytes = ((yield* settledHeapUsed) - before) / n
      yield* Scope.close(scope, Exit.void)
      return bytes
    }).pipe(Effect.provide(LockStore.layerMemory))
  )

/** One row of the memory table: a line's rounds, and its heap per lease for each count held. */
export interface Row {
  readonly name: string
  readonly rounds: ReadonlyArray<MemoryRound>
  readonly heldBytes: ReadonlyArray<number>
  /** The same, held under one lease session. */
  readonly sessionHeldBytes: ReadonlyArray<number>
}

export const render = (rows: ReadonlyArray<Row>, heldCounts: ReadonlyArray<number>): string =>
  table(
    [
      "store",
      "cycles/s",
      "CPU µs/cycle",
      ...heldCounts.map((n) => `heap KiB/lease, ${n.toLocaleString("en-US")} held`),
      ...heldCounts.map((n) => `under one session, ${n.toLocaleString("en-US")} held`)
    ],
    rows.map((row) => [
      row.name,
      spread(row.rounds.map((r) => r.cyclesPerSecond), 0),
      spread(row.rounds.map((r) => r.cpuUsPerCycle), 1),
      ...row.heldBytes.map((bytes) => fixed(bytes / 1024, 1)),
      ...row.sessionHeldBytes.map((bytes) => fixed(bytes / 1024, 1))
    ])
  )

/** The cycles alone, for rows without a heap measure: the memory store through every path. */
export const renderCycles = (rows: ReadonlyArray<Pick<Row, "name" | "rounds">>): string =>
  table(
    ["store", "cycles/s", "CPU µs/cycle"],
    rows.map((row) => [
      row.name,
      spread(row.rounds.map((r) => r.cyclesPerSecond), 0),
      spread(row.rounds.map((r) => r.cpuUsPerCycle), 1)
    ])
  )
