/**
 * A `LockStore` wrapper that injects faults into any store, per operation and per simulated process: errors
 * (retryable and not), latency, hangs, and lost responses (the write is applied but the caller gets an error or a
 * timeout: the ambiguous case). Delays go through `Clock`, so `TestClock` drives them; which call gets which fault
 * comes from a `Plan`, either an explicit list (replayable, shrinkable) or a seeded random plan.
 *
 * @since 0.1.0
 */
import { LockError, LockStore } from "@leasehold/lock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { prng } from "./internal/prng.js"

/**
 * The operations a fault can be injected into.
 *
 * @since 0.1.0
 * @category models
 */
export type Operation = LockStore.OperationName

/**
 * What goes wrong with one call.
 *
 * - `retryable` / `fatal`: the call fails with a retryable / non-retryable `LockStoreError`; nothing is written.
 * - `latency`: the request takes `ms` to reach the store, then is applied and answered.
 * - `hang`: the request is stuck for `ms` (forever without `ms`) before it is applied; a late write.
 * - `slowResponse`: the write is applied at once, the answer arrives `ms` later.
 * - `lostResponse`: the write is applied, the caller gets a retryable error (the ambiguous case).
 * - `lostTimeout`: the write is applied, the caller waits `ms` (forever without `ms`) and gets a timeout error.
 *
 * @since 0.1.0
 * @category models
 */
export type FaultKind = "retryable" | "fatal" | "latency" | "hang" | "slowResponse" | "lostResponse" | "lostTimeout"

/**
 * All fault kinds, for summaries and generators.
 *
 * @since 0.1.0
 * @category constants
 */
export const faultKinds: ReadonlyArray<FaultKind> = [
  "retryable",
  "fatal",
  "latency",
  "hang",
  "slowResponse",
  "lostResponse",
  "lostTimeout"
]

/**
 * @since 0.1.0
 * @category models
 */
export interface Fault {
  readonly kind: FaultKind
  /** Delay for `latency`, `hang`, `slowResponse`, `lostTimeout`, in milliseconds. */
  readonly ms?: number | undefined
}

/**
 * One call as the plan sees it: which process made it, which operation, and how many calls of that operation this
 * process made before it (0-based).
 *
 * @since 0.1.0
 * @category models
 */
export interface Call {
  readonly process: string
  readonly operation: Operation
  readonly nth: number
}

/**
 * Decides the fault of each call, if any. Must be deterministic for a replayable run.
 *
 * @since 0.1.0
 * @category models
 */
export type Plan = (call: Call) => Fault | undefined

/**
 * A fault pinned to one call.
 *
 * @since 0.1.0
 * @category models
 */
export interface ScheduledFault {
  /** Only calls of this process; any process when omitted. */
  readonly process?: string | undefined
  readonly operation: Operation
  readonly nth: number
  readonly fault: Fault
}

/**
 * A plan from an explicit list: the replayable, shrinkable form.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromList = (faults: ReadonlyArray<ScheduledFault>): Plan => (call) =>
  faults.find((f) =>
    (f.process === undefined || f.process === call.process) && f.operation === call.operation && f.nth === call.nth
  )?.fault

/**
 * A seeded random plan: each call gets a fault with probability `rate`, of a kind drawn from `kinds`, with a delay up
 * to `maxMs`. The draw depends only on (seed, process, operation, nth), not on the order in which calls happen.
 *
 * @since 0.1.0
 * @category constructors
 */
export const random = (options: {
  readonly seed: number
  readonly rate: number
  readonly kinds?: ReadonlyArray<FaultKind> | undefined
  readonly maxMs?: number | undefined
}): Plan => {
  const kinds = options.kinds ?? faultKinds
  const maxMs = options.maxMs ?? 1_000
  return (call) => {
    const next = prng(hash(`${options.seed}/${call.process}/${call.operation}/${call.nth}`))
    if (next() >= options.rate || kinds.length === 0) return undefined
    const kind = kinds[Math.floor(next() * kinds.length)]!
    return { kind, ms: 1 + Math.floor(next() * maxMs) }
  }
}

const hash = (text: string): number => {
  let h = 2166136261
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 16777619)
  }
  return h >>> 0
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The simulated process this store stands for. */
  readonly process: string
  readonly plan: Plan
  /**
   * Run before each call reaches the store and before its answer reaches the caller: a paused process blocks here.
   */
  readonly gate?: Effect.Effect<void> | undefined
  /** Told about every injected fault, for summaries. */
  readonly onFault?: ((call: Call, fault: Fault) => void) | undefined
}

const delay = (ms: number | undefined): Effect.Effect<void> =>
  ms === undefined ? Effect.never : Effect.sleep(Duration.millis(ms))

/**
 * Wraps a backend's operations. Each call is numbered per operation; the plan decides its fault.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (backing: LockStore.Operations, options: Options): LockStore.Operations => {
  const counts = new Map<Operation, number>()
  const gate = options.gate ?? Effect.void

  const wrap = <A>(
    operation: Operation,
    run: Effect.Effect<A, LockError.LockStoreError>
  ): Effect.Effect<A, LockError.LockStoreError> =>
    Effect.suspend(() => {
      const nth = counts.get(operation) ?? 0
      counts.set(operation, nth + 1)
      const call: Call = { process: options.process, operation, nth }
      const fault = options.plan(call)
      if (fault !== undefined) options.onFault?.(call, fault)
      const error = (retryable: boolean, what: string) =>
        new LockError.LockStoreError({
          operation,
          retryable,
          message: `injected fault: ${what} (${options.process} ${operation} #${nth})`
        })
      const applied = (after: Effect.Effect<void>) => Effect.zipLeft(Effect.zipRight(gate, run), after)
      let effect: Effect.Effect<A, LockError.LockStoreError>
      switch (fault?.kind) {
        case undefined:
          effect = Effect.zipRight(gate, run)
          break
        case "retryable":
        case "fatal":
          effect = Effect.zipRight(gate, Effect.fail(error(fault.kind === "retryable", fault.kind)))
          break
        case "latency":
        case "hang":
          effect = Effect.zipRight(delay(fault.ms), Effect.zipRight(gate, run))
          break
        case "slowResponse":
          effect = applied(delay(fault.ms))
          break
        case "lostResponse":
          effect = Effect.zipRight(applied(Effect.void), Effect.fail(error(true, "response lost after the write")))
          break
        case "lostTimeout":
          effect = Effect.zipRight(
            applied(delay(fault.ms)),
            Effect.fail(error(true, "timed out after the write applied"))
          )
          break
      }
      // The answer reaches a paused process only when it resumes.
      return Effect.zipLeft(effect, gate)
    })

  return LockStore.intercept(backing, wrap)
}

/**
 * Wraps the `LockStore` in context. The result is a new process's view of the same data (its own local queues).
 *
 * @example
 * ```ts
 * import { Lock, LockStore } from "@leasehold/lock"
 * import * as FaultyStore from "@leasehold/testing/FaultyStore"
 * import { Console, Effect } from "effect"
 *
 * // Process "a" loses the answer to its first acquire, although the write took effect: the ambiguous case.
 * const faulty = FaultyStore.layer({
 *   process: "a",
 *   plan: FaultyStore.fromList([{ operation: "tryAcquire", nth: 0, fault: { kind: "lostResponse" } }])
 * })
 *
 * // The retry finds its own record and goes on holding the lock.
 * const program = Lock.withLock("jobs/cleanup", Effect.succeed("cleaned up"), {
 *   wait: "5 seconds",
 *   pollInterval: "20 millis"
 * })
 *
 * Effect.runPromise(
 *   program.pipe(Effect.tap(Console.log), Effect.provide(faulty), Effect.provide(LockStore.layerMemory))
 * )
 * // Output: cleaned up
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<LockStore.LockStore, never, LockStore.LockStore> =>
  Layer.effect(
    LockStore.LockStore,
    Effect.map(LockStore.LockStore, (store) => LockStore.make(make(store, options)))
  )
