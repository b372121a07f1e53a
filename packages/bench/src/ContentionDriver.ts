/**
 * What a contender provides for the contention and takeover tables, run inside worker processes (and, for takeover,
 * in the bench process): a loop on one key that waits for the lock as the library waits, a holder that heartbeats
 * until killed, and a takeover that waits for a dead holder's lock; with the pieces the drivers share. Each library's
 * driver is in `contenders/`, and `Drivers.ts` picks one by id: a driver imports this module, never that one.
 */
import type { Acquisition, ClientConfig, LoopOptions } from "./Protocol.js"

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
