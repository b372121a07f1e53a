/**
 * The messages the bench exchanges with its worker processes over IPC, and the records they carry. Plain shapes, no
 * runtime: each Leasehold line's workers speak them (the Effect 4 line's bench links this file), so the bench starts
 * either line's worker and reads both with one table code.
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
  /** The lease ran out inside the section; only a loop that goes on after a loss marks it. */
  readonly lost?: true | undefined
}

/** A contention loop's settings. */
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

/** To a contention worker: run the loop and send back `ContentionRun`. */
export interface Contend {
  readonly config: ClientConfig
  readonly contend: LoopOptions
  /** Also measure this process's event-loop delay (a 1 ms sampling timer: only for traced runs). */
  readonly eventLoop?: boolean
}

/** Event-loop delay of one worker, ms. */
export interface EventLoopDelay {
  readonly p50: number
  readonly p99: number
  readonly max: number
  readonly cpuMs: number
}

/** What one contention worker sent back. */
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
  /** How many acquisitions are in flight at once during the setup. */
  readonly concurrency: number
  /** Whether the locks are held under one lease session, whose heartbeat alone renews. */
  readonly session?: boolean | undefined
}

/** From the scale worker, once every acquisition ended. */
export interface ScaleHeld {
  readonly setupMs: number
  readonly acquired: number
  readonly failed: number
  /** Keys whose acquisition failed: the server may have seen their write all the same. */
  readonly failedKeys: ReadonlyArray<string>
  /** How many acquisitions failed with each error, by its tag and the start of its message. */
  readonly failureReasons: Readonly<Record<string, number>>
}

/** From the scale worker, asked for with `{ report: true }`. */
export interface ScaleReport {
  /**
   * Heap used after a forced GC, bytes: before anything was held, with N of the bench's waiting fibers alone (measured
   * on a sample of them and scaled to N), and with N locks held.
   */
  readonly heapBaseline: number
  readonly heapHarness: number
  readonly heapHeld: number
  readonly lost: number
  readonly atRisk: number
  /** CPU of the worker from `ScaleHeld` to the report, ms, and the wall time it spans. */
  readonly cpuMs: number
  readonly wallMs: number
  /** The event loop's delay over the same span, p99, ms. */
  readonly loopDelayP99Ms: number
}

/** To a line worker: one round of uncontended `withLock` cycles on the DynamoDB store, answered by `Round`. */
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

/** To a line worker: the memory store's rounds, then the heap per lease held, answered by `Memory`. */
export interface MemoryRequest {
  readonly memory: { readonly rounds: number; readonly roundMs: number; readonly held: ReadonlyArray<number> }
}

/** One round of the memory store's cycles. */
export interface MemoryRound {
  readonly cyclesPerSecond: number
  readonly cpuUsPerCycle: number
}

export interface Memory {
  readonly rounds: ReadonlyArray<MemoryRound>
  /** The same rounds on the memory store behind a wrapper: every path a DynamoDB store takes. */
  readonly productionRounds: ReadonlyArray<MemoryRound>
  /** Heap bytes per lease, for each count of `held`. */
  readonly heldBytes: ReadonlyArray<number>
  /** The same, held under one lease session. */
  readonly sessionHeldBytes: ReadonlyArray<number>
}

export type LineRequest = RoundRequest | MemoryRequest
