/**
 * Fault plans (from a list, or seeded random) and the store wrapper that applies them.
 *
 * @internal
 */
import { LockError, LockStore } from "@leasehold/lock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as FaultyStore from "../FaultyStore.js"
import { prng } from "./prng.js"

/** @internal */
export const faultKinds: ReadonlyArray<FaultyStore.FaultKind> = [
  "retryable",
  "fatal",
  "latency",
  "hang",
  "slowResponse",
  "lostResponse",
  "lostTimeout"
]

/** @internal */
export const fromList = (faults: ReadonlyArray<FaultyStore.ScheduledFault>): FaultyStore.Plan => (call) =>
  faults.find((f) =>
    (f.process === undefined || f.process === call.process) && f.operation === call.operation && f.nth === call.nth
  )?.fault

/** @internal */
export const random = (options: {
  readonly seed: number
  readonly rate: number
  readonly kinds?: ReadonlyArray<FaultyStore.FaultKind> | undefined
  readonly maxMs?: number | undefined
}): FaultyStore.Plan => {
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

const delay = (ms: number | undefined): Effect.Effect<void> =>
  ms === undefined ? Effect.never : Effect.sleep(Duration.millis(ms))

/** @internal */
export const make = (backing: LockStore.LockStore, options: FaultyStore.Options): LockStore.LockStore => {
  const counts = new Map<FaultyStore.Operation, number>()
  const gate = options.gate ?? Effect.void

  const wrap = <A>(
    operation: FaultyStore.Operation,
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

/** @internal */
export const layer = (options: FaultyStore.Options): Layer.Layer<LockStore.LockStore, never, LockStore.LockStore> =>
  Layer.effect(
    LockStore.LockStore,
    Effect.map(LockStore.LockStore, (store) => make(store, options))
  )
