/**
 * The process of the scale table: it holds N locks at once, each as a user would, in a fiber of its own that acquires
 * with `Lock.acquire` into a scope and keeps that scope open, with the heartbeat running (or, asked to, all of them
 * under one lease session, whose heartbeat alone renews). Started by `Scale.run`
 * with `--expose-gc`, so that heap use is measured after a full collection, in a heap that holds nothing else.
 *
 * IPC: it says `{ ready }`, gets a `ScaleStart`, answers `ScaleHeld` once every acquisition ended, gets
 * `{ report: true }`, answers `ScaleReport` and exits without releasing: the leases expire on their own and the server
 * is thrown away after the table, while thousands of releases would take minutes of a shared machine and measure
 * nothing here.
 */
import * as DynamoLockStore from "@leasehold/dynamodb/DynamoLockStore"
import type * as Lease from "@leasehold/lock/Lease"
import * as LeaseSession from "@leasehold/lock/LeaseSession"
import * as Lock from "@leasehold/lock/Lock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Scope from "effect/Scope"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { clientConfig, tables } from "./Contender.js"
import * as EffectLine from "./effectLine.js"
import type { ScaleHeld, ScaleReport, ScaleStart } from "./Protocol.js"

const harnessSample = 1_000

const gc = (): void => {
  const collect = (globalThis as { gc?: () => void }).gc
  if (collect === undefined) throw new Error("scaleWorker needs node --expose-gc")
  // A second pass collects what the first one's finalizers released.
  collect()
  collect()
}

const heapUsed = (): number => {
  gc()
  return process.memoryUsage().heapUsed
}

/**
 * What the bench itself keeps per lock (a fiber waiting in a scope), without the lock, to read the rest against; on
 * `harnessSample` fibers, since at a tiny N the difference would be lost in the heap's noise. A function of its own so
 * that the fibers are garbage once it returns.
 */
const harnessBytesPerLock = (heapBaseline: number) =>
  Effect.gen(function*() {
    const idle = yield* Effect.forEach(
      Array.from({ length: harnessSample }),
      () => EffectLine.forkChild(Effect.acquireUseRelease(Scope.make(), () => Effect.never, Scope.close))
    )
    yield* EffectLine.yieldNow
    const bytes = (heapUsed() - heapBaseline) / harnessSample
    yield* Fiber.interruptAll(idle)
    return bytes
  })

const next = <A>(): Promise<A> => new Promise((resolve) => process.once("message", (message: A) => resolve(message)))

const hold = (start: ScaleStart) =>
  Effect.gen(function*() {
    const options: Lock.LockOptions = {
      lease: Duration.millis(start.leaseMs),
      heartbeat: Duration.millis(start.heartbeatMs)
    }
    // Warm every code path, and open as many connections as the setup will, so that the baseline holds the code, the
    // client and its sockets, and the difference the locks. With the default lease: a cold process answers slowly.
    for (let round = 0; round < 3; round++) {
      yield* Effect.forEach(
        Array.from({ length: start.concurrency }, (_, i) => `${start.keyPrefix}warmup-${i}`),
        (key) => Lock.withLock(key, Effect.void),
        { concurrency: start.concurrency, discard: true }
      )
    }
    const heapBaseline = heapUsed()

    const heapHarness = heapBaseline + (yield* harnessBytesPerLock(heapBaseline)) * start.n

    const leases: Array<Lease.Lease> = []
    const failedKeys: Array<string> = []
    const failureReasons: Record<string, number> = {}
    const noteFailure = (error: { readonly _tag: string; readonly message: string }) => {
      const reason = `${error._tag}: ${error.message.slice(0, 80)}`
      failureReasons[reason] = (failureReasons[reason] ?? 0) + 1
    }

    // A holder: acquires, says so through `settled`, and keeps its scope open. A loss interrupts it (the fiber that
    // acquired); its scope then closes, which releases.
    const holdOne = (key: string, settled: Deferred.Deferred<void>) =>
      Effect.acquireUseRelease(
        Scope.make(),
        (scope) =>
          Effect.provideService(Lock.acquire(key, options), Scope.Scope, scope).pipe(
            Effect.matchEffect({
              onFailure: (error) =>
                Effect.andThen(
                  Effect.sync(() => {
                    failedKeys.push(key)
                    noteFailure(error)
                  }),
                  Deferred.succeed(settled, undefined)
                ),
              onSuccess: (lease) =>
                Effect.andThen(
                  Effect.andThen(Effect.sync(() => leases.push(lease)), Deferred.succeed(settled, undefined)),
                  Effect.never
                )
            })
          ),
        Scope.close
      )

    // `concurrency` workers each start a holder and wait until it settled before the next. Not a semaphore around
    // each acquire: Effect 3's semaphore wakes every waiter on each release, quadratic in N with all N waiting.
    // Detached, so that a holder outlives the worker that started it.
    const setupStart = performance.now()
    yield* Effect.forEach(
      Array.from({ length: start.n }, (_, i) => `${start.keyPrefix}${i}`),
      (key) =>
        Effect.flatMap(
          Deferred.make<void>(),
          (settled) => Effect.andThen(EffectLine.forkDetach(holdOne(key, settled)), Deferred.await(settled))
        ),
      { concurrency: start.concurrency, discard: true }
    )
    const setupMs = performance.now() - setupStart
    const loopDelay = monitorEventLoopDelay({ resolution: 10 })
    loopDelay.enable()
    const cpuAtHeld = process.cpuUsage()
    const wallAtHeld = performance.now()
    const reportAsked = next<{ report: true }>()
    process.send?.(
      { setupMs, acquired: leases.length, failed: failedKeys.length, failedKeys, failureReasons } satisfies ScaleHeld
    )

    yield* Effect.promise(() => reportAsked)
    const cpu = process.cpuUsage(cpuAtHeld)
    loopDelay.disable()
    const wallMs = performance.now() - wallAtHeld
    let lost = 0
    let atRisk = 0
    for (const lease of leases) {
      const status = yield* lease.status
      if (status._tag === "Lost") lost++
      if (status._tag === "AtRisk") atRisk++
    }
    const heapHeld = heapUsed()
    const report: ScaleReport = {
      heapBaseline,
      heapHarness,
      heapHeld,
      lost,
      atRisk,
      cpuMs: (cpu.user + cpu.system) / 1000,
      wallMs,
      loopDelayP99Ms: loopDelay.percentile(99) / 1e6
    }
    // Exit from here: ending this fiber would interrupt the holders, and so release every lock.
    process.send?.(report, () => process.exit(0))
    return yield* Effect.never
  })

process.once("message", (start: ScaleStart) => {
  const runtime = ManagedRuntime.make(
    DynamoLockStore.layer({ tableName: tables.leasehold, clientConfig: clientConfig(start.config) })
  )
  // Under a session, every lock the process acquires is held under it: one heartbeat for all of them.
  const program = start.session === true
    ? hold(start).pipe(
      Effect.provide(
        LeaseSession.layer({ lease: Duration.millis(start.leaseMs), heartbeat: Duration.millis(start.heartbeatMs) })
      )
    )
    : hold(start)
  runtime.runPromise(program).then(
    () => process.exit(0),
    (error) => {
      console.error(error)
      process.exit(1)
    }
  )
})
process.send?.({ ready: true })
