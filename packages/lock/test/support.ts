/**
 * Test helpers: a store wrapper that counts calls and can hold an operation in flight, and simulated processes that
 * share one memory store's data but have their own local queues.
 */
import { LockError, LockStore } from "@leasehold/lock"
import { type Clock, Deferred, Effect, Layer, type Option, type Tracer } from "effect"
import {
  currentTimeMillisUnsafe,
  makeClock,
  makeTracer,
  monotonicTimeNanosUnsafe,
  withClock,
  yieldNow
} from "./effectLine.js"

export type OperationName = LockStore.OperationName

/** Where to hold a call: before it reaches the store, or after the store applied it (a lost response). */
export type HoldPoint = "before" | "after"

export interface Probe {
  readonly service: LockStore.LockStore
  readonly layer: Layer.Layer<LockStore.LockStore>
  readonly calls: Record<OperationName, number>
  /** Holds every following call of `operation` at `point` until `open` is called. */
  readonly hold: (operation: OperationName, point: HoldPoint) => Effect.Effect<void>
  /** Resolves once a held call is waiting. */
  readonly held: Effect.Effect<void>
  readonly open: Effect.Effect<void>
  /** Makes every following call of `operation` fail with a retryable store error. */
  readonly failing: (operation: OperationName, on: boolean) => void
}

/** A count of zero for every store operation. */
export const noCalls = (): Record<OperationName, number> => ({
  tryAcquire: 0,
  renew: 0,
  release: 0,
  inspect: 0,
  list: 0,
  reserve: 0,
  forceRelease: 0,
  tryAcquirePermits: 0,
  renewPermits: 0,
  releasePermits: 0,
  reservePermits: 0,
  tryAcquireAll: 0,
  inspectSemaphore: 0
})

/** Wraps the operations of `backing` (shared data) in a new "process" with its own local queues. */
export const probe = (backing: LockStore.LockStore): Effect.Effect<Probe> =>
  Effect.gen(function*() {
    const calls = noCalls()
    let holding: { operation: OperationName; point: HoldPoint; gate: Deferred.Deferred<void> } | undefined
    let heldSignal = yield* Deferred.make<void>()
    const failingOps = new Set<OperationName>()

    const wrap: LockStore.Interceptor = <A>(
      operation: OperationName,
      run: Effect.Effect<A, LockError.LockStoreError>
    ) =>
      Effect.suspend((): Effect.Effect<A, LockError.LockStoreError> => {
        calls[operation]++
        if (failingOps.has(operation)) {
          return Effect.fail(
            new LockError.LockStoreError({ operation, retryable: true, message: `injected ${operation} failure` })
          )
        }
        const h = holding
        if (h === undefined || h.operation !== operation) return run
        const wait = Effect.andThen(Deferred.succeed(heldSignal, undefined), Deferred.await(h.gate))
        return h.point === "before" ? Effect.andThen(wait, run) : Effect.tap(run, wait)
      })

    const service = LockStore.intercept(backing, wrap)

    return {
      service,
      layer: Layer.succeed(LockStore.LockStore, service),
      calls,
      hold: (operation, point) =>
        Effect.gen(function*() {
          heldSignal = yield* Deferred.make<void>()
          holding = { operation, point, gate: yield* Deferred.make<void>() }
        }),
      held: Effect.suspend(() => Deferred.await(heldSignal)),
      open: Effect.suspend(() => {
        const h = holding
        holding = undefined
        return h === undefined ? Effect.void : Deferred.succeed(h.gate, undefined)
      }),
      failing: (operation, on) => {
        if (on) failingOps.add(operation)
        else failingOps.delete(operation)
      }
    }
  })

/** A memory store's data, shared by the simulated processes of one test. */
export const sharedMemory = (): LockStore.LockStore => LockStore.makeMemory()

/** A holder that wrote its lease and died: no heartbeat, no release. */
export const deadHolder = (backing: LockStore.LockStore, name: string, leaseMs: number) =>
  backing.tryAcquire({
    name,
    owner: "dead",
    holder: "crashed",
    leaseMs,
    data: undefined,
    takeover: { _tag: "Absolute", maxClockSkewMs: 0 }
  })

/** A span as `recordingTracer` records it. */
export interface RecordedSpan {
  readonly name: string
  readonly spanId: string
  readonly attributes: Map<string, unknown>
  readonly parent: Option.Option<Tracer.AnySpan>
}

/** A tracer that records every span it starts (ids "1", "2", ... in start order), for tests of spans. */
export const recordingTracer = (): { readonly tracer: Tracer.Tracer; readonly spans: Array<RecordedSpan> } => {
  const spans: Array<RecordedSpan> = []
  const tracer = makeTracer((options) => {
    const attributes = new Map<string, unknown>()
    const spanId = String(spans.length + 1)
    spans.push({ name: options.name, spanId, attributes, parent: options.parent })
    return {
      ...options,
      _tag: "Span",
      spanId,
      traceId: "trace",
      status: { _tag: "Started", startTime: options.startTime },
      attributes,
      end: () => {},
      attribute: (key: string, value: unknown) => attributes.set(key, value),
      event: () => {},
      addLinks: () => {}
    }
  })
  return { tracer, spans }
}

/** Runs `self` with a wall clock `offsetMs` off the current one (a process whose clock is behind or ahead). */
export const withClockOffset = (offsetMs: number) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.clockWith((base) => {
    const skewed = makeClock(
      () => currentTimeMillisUnsafe(base) + offsetMs,
      () => monotonicTimeNanosUnsafe(base),
      (duration) => base.sleep(duration)
    )
    return self.pipe(withClock(skewed))
  })

/**
 * Runs `self`, then `times` times more, one after the other, with no schedule: Effect 3's `Effect.repeat` reads
 * `times: 0` as no limit, and sleeps on the clock between runs even when the schedule asks for no delay.
 */
export const repeatTimes = (times: number) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<void, E, R> =>
  Effect.forEach(Array.from({ length: times + 1 }), () => self, { discard: true })

/** Lets forked fibers run up to their next suspension. */
export const settle: Effect.Effect<void> = yieldNow.pipe(repeatTimes(20))

/** The clock the current fiber reads time from. */
export const currentClock: Effect.Effect<Clock.Clock> = Effect.clockWith(Effect.succeed)

/** What an effect ended with, success or typed failure, as data a test can look at: the lock's own. */
export { type Outcome, outcome } from "../src/internal/outcome.js"
