/**
 * What a planned section may add to its use of a lock: a child it forks, a hand-off midway, permits of a semaphore in
 * place of the lock, or data updates. The public `Simulation.ChildSpec`, `HandOffSpec`, `PermitSpec` and
 * `DataUpdateSpec`.
 *
 * @internal
 */

/** @internal */
export interface ChildSpec {
  readonly afterMs: number
  readonly nested: boolean
  readonly steps: number
  readonly stepMs: number
}

/** @internal */
export interface HandOffSpec {
  readonly afterSteps: number
  readonly to: string
  readonly delayMs: number
}

/** @internal */
export interface PermitSpec {
  readonly limit: number
  readonly permits: number
}

/** @internal */
export interface DataUpdateSpec {
  readonly timeoutMs: number
}
