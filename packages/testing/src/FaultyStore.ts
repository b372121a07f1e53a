/**
 * A `LockStore` wrapper that injects faults into any store, per operation and per simulated process: errors
 * (retryable and not), latency, hangs, lost responses (the write is applied but the caller gets an error or a
 * timeout: the ambiguous case) and late delivery (the network holds a write after its sender gave up, and delivers
 * it later). Delays go through `Clock`, so `TestClock` drives them; which call gets which fault comes from a `Plan`,
 * either an explicit list (replayable, shrinkable) or a seeded random plan.
 *
 * @since 1.0.0
 */
import * as FaultModel from "@leasehold/core/simulation/Fault"
import * as FaultPlan from "@leasehold/core/simulation/FaultPlan"
import type { LockError, LockStore } from "@leasehold/lock"
import type * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import type * as Layer from "effect/Layer"
import * as internal from "./internal/faultyStore/store.js"

/**
 * The operations a fault can be injected into.
 *
 * @since 1.0.0
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
 * The late kinds hold the request in the network and deliver it `ms` after it was sent (no earlier; later if the
 * sending process is paused then), whatever its sender does meanwhile, out of order with the sender's later calls.
 * The store applies it as DynamoDB applies a request built before it was held: at the sender's wall clock as it read
 * when the request was sent. They differ in how the sender gives up:
 *
 * - `lateTimeout`: `giveUpMs` after sending, the call fails with a retryable `LockStoreError`, as a request timeout
 *   does; whoever made it retries with a new request, or gives up.
 * - `lateRetry`: `giveUpMs` after sending, the wrapper sends the same request again, as the DynamoDB store's
 *   transport does after a timeout (built at the same time, so with the same clock reading); the second copy is
 *   applied and answered. An acquire (`tryAcquire`, `tryAcquirePermits`) is not retried so, as no store may retry one
 *   whose outcome it does not know behind its caller's back: it fails as with `lateTimeout`.
 * - `lateHang`: the call never answers, until its caller interrupts it.
 *
 * @since 1.0.0
 * @category models
 */
export type FaultKind = FaultModel.FaultKind

/**
 * All fault kinds, for summaries and generators.
 *
 * @since 1.0.0
 * @category constants
 */
export const faultKinds: ReadonlyArray<FaultKind> = FaultModel.kinds

/**
 * The kinds that hold a write and deliver it after its sender gave up.
 *
 * @since 1.0.0
 * @category constants
 */
export const lateFaultKinds: ReadonlyArray<FaultKind> = FaultModel.lateKinds

/**
 * What goes wrong with one call: its kind, and the delays that kind takes (`ms`, and `giveUpMs` for the late kinds
 * whose sender gives up).
 *
 * @since 1.0.0
 * @category models
 */
export type Fault = FaultModel.Fault

/**
 * One call as the plan sees it: which process made it, which operation, and how many calls of that operation this
 * process made before it (0-based).
 *
 * @since 1.0.0
 * @category models
 */
export type Call = FaultModel.Call

/**
 * What a call asked: the request object its caller built (the very object, passed on unchanged), or the name for
 * the operations that take one.
 *
 * @since 1.0.0
 * @category models
 */
export type Request = Parameters<NonNullable<LockStore.LockStore[Operation]>>[0]

/**
 * A held request, as it reached the store after its sender gave up on it.
 *
 * @since 1.0.0
 * @category models
 */
export interface Delivery {
  readonly call: Call
  readonly fault: Fault
  readonly request: Request
  /** The sender's wall clock when it sent the request: the time the store applied it at. */
  readonly builtAt: number
  /** How long the network held it, on the sender's monotonic clock. */
  readonly heldMs: number
  /** What the store answered it, which nobody hears. */
  readonly exit: Exit.Exit<unknown, LockError.LockStoreError>
}

/**
 * Decides the fault of each call, if any. Must be deterministic for a replayable run.
 *
 * @since 1.0.0
 * @category models
 */
export type Plan = FaultPlan.Plan

/**
 * A fault pinned to one call.
 *
 * @since 1.0.0
 * @category models
 */
export type ScheduledFault = FaultModel.ScheduledFault

/**
 * A plan from an explicit list: the replayable, shrinkable form.
 *
 * @since 1.0.0
 * @category constructors
 */
export const fromList: (faults: ReadonlyArray<ScheduledFault>) => Plan = FaultPlan.fromList

/**
 * A seeded random plan: each call gets a fault with probability `rate`, of a kind drawn from `kinds` (default: every
 * kind), with a delay up to `maxMs` (a late kind gives up within it). The draw depends only on (seed, process,
 * operation, nth), not on the order in which calls happen.
 *
 * @since 1.0.0
 * @category constructors
 */
export const random: (options: {
  readonly seed: number
  readonly rate: number
  readonly kinds?: ReadonlyArray<FaultKind> | undefined
  readonly maxMs?: number | undefined
}) => Plan = FaultPlan.random

/**
 * @since 1.0.0
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
  /**
   * Told about every held request once the store has applied it (or refused it).
   *
   * @since 1.0.0
   */
  readonly onDelivery?: ((delivery: Delivery) => void) | undefined
}

/**
 * Wraps a backend's operations. Each call is numbered per operation; the plan decides its fault.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make: (backing: LockStore.LockStore, options: Options) => LockStore.LockStore = internal.make

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
 * @since 1.0.0
 * @category layers
 */
export const layer: (options: Options) => Layer.Layer<LockStore.LockStore, never, LockStore.LockStore> = internal.layer
