/**
 * What a contender provides for the contention and takeover tables, run inside worker processes (and, for takeover,
 * in the bench process): a loop on one key that waits for the lock as the library waits, a holder that heartbeats
 * until killed, and a takeover that waits for a dead holder's lock; with the pieces the drivers share. Each library's
 * driver is in `contenders/`, and `Drivers.ts` picks one by id: a driver imports this module, never that one.
 */
import type { ClientConfig } from "./ServerProcess.js"

/** One acquisition of a contention loop; epoch ms with sub-millisecond resolution, comparable across processes. */
export interface Acquisition {
  readonly askedAt: number
  readonly enteredAt: number
  /** The lease ran out inside the section; only a loop that goes on after a loss marks it. */
  readonly lost?: true | undefined
}

export interface LoopOptions {
  readonly key: string
  readonly holdMs: number
  readonly leaseMs: number
  /** Epoch ms. */
  readonly endAt: number
  /** How many loops contend for the key (processes, or fibers of one process): a semaphore's limit follows it. */
  readonly contenders: number
  /** Trace experiment (Leasehold only): its `pollInterval` instead of the default. */
  readonly pollIntervalMs?: number | undefined
  /**
   * Trace experiment (Leasehold only): after each release, pause a jittered `yieldMs` (×0.5–1.5) before asking again,
   * counted in the next wait, as a library that lets waiters in after a contended release would.
   */
  readonly yieldMs?: number | undefined
}

/** A takeover mode of one library, as it documents it; `boundMs` is the longest takeover it allows after a kill. */
export interface TakeoverMode {
  readonly name: string
  /** What the row says about the settings, e.g. "maxClockSkew 500 ms". */
  readonly settings: string
  readonly boundMs: (leaseMs: number) => number
}

export interface HoldOptions {
  readonly key: string
  readonly mode: string
  readonly leaseMs: number
}

export interface Driver {
  readonly name: string
  /** The settings the contention row runs with, for the text under the table. */
  readonly contentionSettings: string
  /** The lease the contention row runs with, when the library can not take the one asked for. */
  readonly leaseMs: (askedMs: number) => number
  readonly takeoverModes: ReadonlyArray<TakeoverMode>
  /** Acquire, hold `holdMs`, release, again, until `endAt`. */
  readonly contend: (config: ClientConfig, options: LoopOptions) => Promise<Array<Acquisition>>
  /** Acquires and calls `onHeld`; then holds (heartbeating) until the process dies. */
  readonly hold: (config: ClientConfig, options: HoldOptions, onHeld: () => void) => Promise<void>
  /**
   * Waits for the lock as long as it takes (building its client first, after the kill), calls `onEntered` on entering
   * the section, and releases.
   */
  readonly takeOver: (config: ClientConfig, options: HoldOptions, onEntered: () => void) => Promise<void>
}

/** Now as epoch ms with performance.now()'s resolution. */
export const now = (): number => performance.timeOrigin + performance.now()

/** Runs `acquire → sleep holdMs → release` until `endAt`, recording each acquisition. */
export const timedContention = async (
  options: LoopOptions,
  acquire: () => Promise<() => Promise<void>>
): Promise<Array<Acquisition>> => {
  const acquisitions: Array<Acquisition> = []
  while (Date.now() < options.endAt) {
    const askedAt = now()
    const release = await acquire()
    acquisitions.push({ askedAt, enteredAt: now() })
    await new Promise((resolve) => setTimeout(resolve, options.holdMs))
    await release()
  }
  return acquisitions
}
