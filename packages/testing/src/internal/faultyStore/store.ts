/**
 * The store wrapper that applies a fault plan: each call numbered per operation, its fault applied as its kind says.
 *
 * @internal
 */
import { LockError, LockStore } from "@leasehold/lock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as FaultyStore from "../../FaultyStore.js"
import * as HeldRequest from "./heldRequest.js"

const delay = (ms: number | undefined): Effect.Effect<void> =>
  ms === undefined ? Effect.never : Effect.sleep(Duration.millis(ms))

/** @internal */
export const make = (backing: LockStore.LockStore, options: FaultyStore.Options): LockStore.LockStore => {
  const counts = new Map<FaultyStore.Operation, number>()
  const gate = options.gate ?? Effect.void

  const wrap = <A>(
    operation: FaultyStore.Operation,
    request: FaultyStore.Request,
    run: Effect.Effect<A, LockError.LockStoreError>
  ): Effect.Effect<A, LockError.LockStoreError> =>
    Effect.suspend(() => {
      const nth = counts.get(operation) ?? 0
      counts.set(operation, nth + 1)
      const call: FaultyStore.Call = { process: options.process, operation, nth }
      const fault = options.plan(call)
      if (fault !== undefined) options.onFault?.(call, fault)
      const error = (retryable: boolean, what: string) =>
        new LockError.LockStoreError({
          operation,
          retryable,
          message: `injected fault: ${what} (${options.process} ${operation} #${nth})`
        })
      const applied = (after: Effect.Effect<void>) => Effect.tap(Effect.andThen(gate, run), after)
      let effect: Effect.Effect<A, LockError.LockStoreError>
      switch (fault?.kind) {
        case undefined:
          effect = Effect.andThen(gate, run)
          break
        case "retryable":
        case "fatal":
          effect = Effect.andThen(gate, Effect.fail(error(fault.kind === "retryable", fault.kind)))
          break
        case "latency":
        case "hang":
          effect = Effect.andThen(delay(fault.ms), Effect.andThen(gate, run))
          break
        case "slowResponse":
          effect = applied(delay(fault.ms))
          break
        case "lostResponse":
          effect = Effect.andThen(applied(Effect.void), Effect.fail(error(true, "response lost after the write")))
          break
        case "lostTimeout":
          effect = Effect.andThen(
            applied(delay(fault.ms)),
            Effect.fail(error(true, "timed out after the write applied"))
          )
          break
        case "lateTimeout":
        case "lateRetry":
        case "lateHang":
          effect = Effect.andThen(
            gate,
            HeldRequest.send({
              call,
              fault,
              request,
              run,
              timedOut: Effect.fail(error(true, "timed out; the request may still be delivered")),
              onDelivery: options.onDelivery
            })
          )
          break
      }
      // The answer reaches a paused process only when it resumes.
      return Effect.tap(effect, gate)
    })

  // Each call keeps its request, which a held call is delivered with.
  return {
    tryAcquire: (request) => wrap("tryAcquire", request, backing.tryAcquire(request)),
    ...(backing.tryAcquireAll === undefined ? {} : {
      tryAcquireAll: (request: LockStore.AcquireAllRequest) =>
        wrap("tryAcquireAll", request, backing.tryAcquireAll!(request))
    }),
    renew: (request) => wrap("renew", request, backing.renew(request)),
    release: (request) => wrap("release", request, backing.release(request)),
    inspect: (name) => wrap("inspect", name, backing.inspect(name)),
    list: (request) => wrap("list", request, backing.list(request)),
    reserve: (request) => wrap("reserve", request, backing.reserve(request)),
    forceRelease: (name, holder) => wrap("forceRelease", name, backing.forceRelease(name, holder)),
    tryAcquirePermits: (request) => wrap("tryAcquirePermits", request, backing.tryAcquirePermits(request)),
    renewPermits: (request) => wrap("renewPermits", request, backing.renewPermits(request)),
    releasePermits: (request) => wrap("releasePermits", request, backing.releasePermits(request)),
    reservePermits: (request) => wrap("reservePermits", request, backing.reservePermits(request)),
    inspectSemaphore: (name) => wrap("inspectSemaphore", name, backing.inspectSemaphore(name)),
    maxNameBytes: backing.maxNameBytes,
    nameProblem: backing.nameProblem,
    semaphoreNameProblem: backing.semaphoreNameProblem,
    semaphoreLeaseProblem: backing.semaphoreLeaseProblem
  }
}

/** @internal */
export const layer = (options: FaultyStore.Options): Layer.Layer<LockStore.LockStore, never, LockStore.LockStore> =>
  Layer.effect(
    LockStore.LockStore,
    Effect.map(LockStore.LockStore, (store) => make(store, options))
  )
