/**
 * The messages the root bench (`packages/bench`) exchanges with this line's worker processes over IPC: the same
 * shapes as the Effect 3 line's workers, so that the root bench runs either line's worker and reads both with one
 * table code. Written out here rather than imported, since the root bench's modules belong to the Effect 3 project.
 */

/** Where the DynamoDB server listens. */
export interface ClientConfig {
  readonly endpoint: string
  readonly region: string
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string }
}

/** One acquisition of a contention loop; epoch ms with sub-millisecond resolution, comparable across processes. */
export interface Acquisition {
  readonly askedAt: number
  readonly enteredAt: number
  /** The lease ran out inside the section; the loop went on. */
  readonly lost?: true | undefined
}

/** A contention loop's settings. */
export interface LoopOptions {
  readonly key: string
  readonly holdMs: number
  readonly leaseMs: number
  /** Epoch ms. */
  readonly endAt: number
  readonly contenders: number
  readonly pollIntervalMs?: number | undefined
  readonly yieldMs?: number | undefined
}

/** To the contention worker: run the loop and send back `ContentionRun`. */
export interface Contend {
  readonly config: ClientConfig
  readonly contend: LoopOptions
  readonly eventLoop?: boolean
}

/** Event-loop delay of one worker, ms. */
export interface EventLoopDelay {
  readonly p50: number
  readonly p99: number
  readonly max: number
  readonly cpuMs: number
}

export interface ContentionRun {
  readonly acquisitions: ReadonlyArray<Acquisition>
  readonly eventLoop?: EventLoopDelay | undefined
}

/** To the scale worker: hold `n` locks. */
export interface ScaleStart {
  readonly config: ClientConfig
  readonly keyPrefix: string
  readonly n: number
  readonly leaseMs: number
  readonly heartbeatMs: number
  readonly concurrency: number
}

export interface ScaleHeld {
  readonly setupMs: number
  readonly acquired: number
  readonly failed: number
  readonly failedKeys: ReadonlyArray<string>
}

export interface ScaleReport {
  readonly heapBaseline: number
  readonly heapHarness: number
  readonly heapHeld: number
  readonly lost: number
  readonly atRisk: number
  readonly cpuMs: number
  readonly wallMs: number
  readonly loopDelayP99Ms: number
}

/** To the line worker: one round of uncontended `withLock` cycles on the DynamoDB store, answered by `Round`. */
export interface RoundRequest {
  readonly config: ClientConfig
  readonly round: { readonly key: string; readonly durationMs: number }
}

/** Each cycle's latency (ms), with the worker's CPU and wall time over the round. */
export interface Round {
  readonly latencies: ReadonlyArray<number>
  readonly cpuMs: number
  readonly seconds: number
}

/** To the line worker: the memory store's rounds, then the heap per lease held, answered by `Memory`. */
export interface MemoryRequest {
  readonly memory: { readonly rounds: number; readonly roundMs: number; readonly held: ReadonlyArray<number> }
}

export interface MemoryRound {
  readonly cyclesPerSecond: number
  readonly cpuUsPerCycle: number
}

export interface Memory {
  readonly rounds: ReadonlyArray<MemoryRound>
  /** Heap bytes per lease, for each count of `held`. */
  readonly heldBytes: ReadonlyArray<number>
}

export type LineRequest = RoundRequest | MemoryRequest
