/**
 * The faults a simulation injects into store calls, as plain data: which operation of which process, and what goes
 * wrong with it. The fault-injecting store of each Effect line applies them; schedules, histories and the shrinker
 * only read them.
 *
 * @since 1.0.0
 */

/**
 * The store operations a fault can be injected into: every call of the store contract.
 *
 * @since 1.0.0
 * @category models
 */
export type Operation =
  | "tryAcquire"
  | "tryAcquireAll"
  | "renew"
  | "release"
  | "reserve"
  | "inspect"
  | "list"
  | "forceRelease"
  | "tryAcquirePermits"
  | "renewPermits"
  | "releasePermits"
  | "reservePermits"
  | "inspectSemaphore"

/**
 * What goes wrong with one call.
 *
 * - `retryable` / `fatal`: the call fails with a retryable / non-retryable store error; nothing is written.
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
 * - `lateTimeout`: `giveUpMs` after sending, the call fails with a retryable store error, as a request timeout
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
export type FaultKind =
  | "retryable"
  | "fatal"
  | "latency"
  | "hang"
  | "slowResponse"
  | "lostResponse"
  | "lostTimeout"
  | "lateTimeout"
  | "lateRetry"
  | "lateHang"

/**
 * The kinds that hold a write and deliver it after its sender gave up.
 *
 * @since 1.0.0
 * @category constants
 */
export const lateKinds: ReadonlyArray<FaultKind> = ["lateTimeout", "lateRetry", "lateHang"]

/**
 * All fault kinds, in the order summaries print them.
 *
 * @since 1.0.0
 * @category constants
 */
export const kinds: ReadonlyArray<FaultKind> = [
  "retryable",
  "fatal",
  "latency",
  "hang",
  "slowResponse",
  "lostResponse",
  "lostTimeout",
  ...lateKinds
]

/**
 * Whether `kind` holds a write and delivers it after its sender gave up.
 *
 * @since 1.0.0
 * @category predicates
 */
export const isLate = (kind: FaultKind): boolean => lateKinds.includes(kind)

/**
 * Whether a fault of `kind` takes no `ms`: it fails or loses the call at once.
 *
 * @since 1.0.0
 * @category predicates
 */
export const isInstant = (kind: FaultKind): boolean =>
  kind === "retryable" || kind === "fatal" || kind === "lostResponse"

/**
 * @since 1.0.0
 * @category models
 */
export interface Fault {
  readonly kind: FaultKind
  /**
   * Delay for `latency`, `hang`, `slowResponse`, `lostTimeout`, in milliseconds; for the late kinds, how long after
   * it was sent the held request is delivered (at once without `ms`).
   */
  readonly ms?: number | undefined
  /**
   * For `lateTimeout` and `lateRetry`: when the sender gives up on the first copy, in milliseconds after sending it
   * (at once without `giveUpMs`).
   */
  readonly giveUpMs?: number | undefined
}

/**
 * One call as a plan sees it: which process made it, which operation, and how many calls of that operation this
 * process made before it (0-based).
 *
 * @since 1.0.0
 * @category models
 */
export interface Call {
  readonly process: string
  readonly operation: Operation
  readonly nth: number
}

/**
 * A fault pinned to one call.
 *
 * @since 1.0.0
 * @category models
 */
export interface ScheduledFault {
  /** Only calls of this process; any process when omitted. */
  readonly process?: string | undefined
  readonly operation: Operation
  readonly nth: number
  readonly fault: Fault
}

/**
 * Whether `operation` writes to a semaphore rather than to a lock: a read/write lock's waiters' reservations are
 * writes to its semaphore's record.
 *
 * @since 1.0.0
 * @category predicates
 */
export const isPermitOperation = (operation: Operation): boolean =>
  operation === "tryAcquirePermits" || operation === "renewPermits" || operation === "releasePermits" ||
  operation === "reservePermits"

/**
 * Whether `operation` is an acquire, which no store may retry behind its caller's back: the caller must know that
 * the first copy may still land.
 *
 * @since 1.0.0
 * @category predicates
 */
export const isAcquire = (operation: Operation): boolean =>
  operation === "tryAcquire" || operation === "tryAcquireAll" || operation === "tryAcquirePermits"
