/**
 * Which call gets which fault: a plan from an explicit list (replayable, shrinkable), or a seeded random one.
 *
 * @since 1.0.0
 */
import * as Fault from "./Fault.js"
import * as Prng from "./Prng.js"

/**
 * Decides the fault of each call, if any. Must be deterministic for a replayable run.
 *
 * @since 1.0.0
 * @category models
 */
export type Plan = (call: Fault.Call) => Fault.Fault | undefined

/**
 * A plan from an explicit list: the first fault pinned to the call (or to its operation and number in any process).
 *
 * @since 1.0.0
 * @category constructors
 */
export const fromList = (faults: ReadonlyArray<Fault.ScheduledFault>): Plan => (call) =>
  faults.find((f) =>
    (f.process === undefined || f.process === call.process) && f.operation === call.operation && f.nth === call.nth
  )?.fault

/** Default bound on a random fault's delay: long enough to outlast the short leases tests use. */
const defaultMaxMs = 1_000

/**
 * A seeded random plan: each call gets a fault with probability `rate`, of a kind drawn from `kinds` (default: every
 * kind), with a delay up to `maxMs` (a late kind gives up within it). The draw depends only on (seed, process,
 * operation, nth), not on the order in which calls happen.
 *
 * @since 1.0.0
 * @category constructors
 */
export const random = (options: {
  readonly seed: number
  readonly rate: number
  readonly kinds?: ReadonlyArray<Fault.FaultKind> | undefined
  readonly maxMs?: number | undefined
}): Plan => {
  const kinds = options.kinds ?? Fault.kinds
  const maxMs = options.maxMs ?? defaultMaxMs
  return (call) => {
    const next = Prng.make(hash(`${options.seed}/${call.process}/${call.operation}/${call.nth}`))
    if (next() >= options.rate || kinds.length === 0) return undefined
    const kind = kinds[Math.floor(next() * kinds.length)]!
    const ms = 1 + Math.floor(next() * maxMs)
    return kind === "lateTimeout" || kind === "lateRetry"
      ? { kind, ms, giveUpMs: Math.floor(next() * ms) }
      : { kind, ms }
  }
}

/** FNV-1a: a seed per call from its description, so that a call's draw does not depend on the calls before it. */
const hash = (text: string): number => {
  let h = 2166136261
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 16777619)
  }
  return h >>> 0
}
