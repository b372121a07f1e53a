/**
 * One attempt of a store request on the wire, and what follows from its end: the timer that bounds it, the abort that
 * an interruption or the store's end sends it, and the decision on a failure (a failed condition, a store that has
 * closed, another attempt, or a failure to report). The shell wraps an attempt in its runtime's callback effect and
 * turns each outcome into a result, a backoff or an error; the bookkeeping between the SDK's promise, the timer and
 * the store's requests in flight is the same on every runtime, so it is written here.
 *
 * @since 1.0.0
 */
import * as Failure from "./Failure.js"
import * as Retry from "./Retry.js"

/**
 * The requests in flight of one store, and whether its scope has closed: once it has, nothing more is sent.
 *
 * @since 1.0.0
 * @category models
 */
export interface Lifetime {
  closed: boolean
  readonly inFlight: Set<AbortController>
}

/**
 * A store's lifetime, open.
 *
 * @since 1.0.0
 * @category lifetime
 */
export const makeLifetime = (): Lifetime => ({ closed: false, inFlight: new Set() })

/**
 * Ends a lifetime: its requests in flight are aborted (their calls fail, not retried), and later calls fail at once.
 *
 * @since 1.0.0
 * @category lifetime
 */
export const end = (lifetime: Lifetime): void => {
  lifetime.closed = true
  for (const controller of lifetime.inFlight) controller.abort()
  lifetime.inFlight.clear()
}

/**
 * What the attempts of one request share: how long one may take, how many retries follow a transient failure, and
 * the lifetime of the store that sends it (none for a helper that ends with its call).
 *
 * @since 1.0.0
 * @category models
 */
export interface Plan {
  readonly requestTimeoutMs: number
  readonly maxRetries: number
  readonly lifetime?: Lifetime | undefined
}

/**
 * Where one attempt stands among the request's.
 *
 * @since 1.0.0
 * @category models
 */
export interface Attempt {
  /** 1 for the first attempt. */
  readonly attempts: number
  /** Whether an earlier attempt may have been applied (it timed out, say, before this retry). */
  readonly earlierMayHaveApplied: boolean
  /** Whether an attempt that may have been applied is reported rather than retried (see `Retry.retries`). */
  readonly reportsUnknownOutcomes: boolean
  /** Background work: its timer does not keep the process alive. */
  readonly background: boolean
}

/**
 * How a failed attempt ends: DynamoDB's failed condition (with the old item, when the server returned it), a store
 * whose scope closed (before the attempt was sent, or while it was in flight), another attempt (`mayHaveApplied`
 * counts this one and the earlier ones), or a failure to report as it is.
 *
 * @since 1.0.0
 * @category models
 */
export type Decision =
  | { readonly _tag: "ConditionFailed"; readonly item: unknown }
  | { readonly _tag: "Closed"; readonly inFlight: boolean }
  | { readonly _tag: "Retry"; readonly mayHaveApplied: boolean }
  | { readonly _tag: "Fail"; readonly error: unknown }

/**
 * How an attempt ends: its output, or the decision on its failure.
 *
 * @since 1.0.0
 * @category models
 */
export type Outcome<Out> = { readonly _tag: "Ok"; readonly output: Out } | Decision

/**
 * The decision on attempt `attempt` that failed with `error`. A failed condition is an answer, whatever else holds; a
 * store that closed while the attempt was in flight reports that rather than the abort it caused.
 *
 * @since 1.0.0
 * @category decisions
 */
export const decide = (plan: Plan, attempt: Attempt, error: unknown): Decision => {
  if (Failure.isConditionalCheckFailed(error)) return { _tag: "ConditionFailed", item: error.Item ?? undefined }
  if (plan.lifetime?.closed === true) return { _tag: "Closed", inFlight: true }
  if (Retry.retries(attempt.attempts, plan.maxRetries, error, attempt.reportsUnknownOutcomes)) {
    return { _tag: "Retry", mayHaveApplied: attempt.earlierMayHaveApplied || Failure.mayHaveApplied(error) }
  }
  return { _tag: "Fail", error }
}

const closedBeforeSending: Decision = { _tag: "Closed", inFlight: false }

const nothingToCancel = () => {}

/** Lets a background call's timer fire while the process lives on for other reasons, without keeping it alive. */
const unref = (timer: ReturnType<typeof setTimeout>) => {
  // Outside Node (a browser, a worker) a timer is a number and holds nothing open anyway.
  if (typeof timer === "object" && typeof timer.unref === "function") timer.unref()
}

/**
 * Sends one attempt (`send` makes the request with the signal that aborts it) and calls `settled` once with its
 * outcome: synchronously with `Closed` when the store has already closed, else when the request ends or its timer
 * fires (a timeout fails as `Failure.RequestTimedOut`). Returns what an interruption calls: it aborts the request,
 * and `settled` is not called after it.
 *
 * @since 1.0.0
 * @category sending
 */
export const run = <Out>(
  plan: Plan,
  attempt: Attempt,
  send: (signal: AbortSignal) => Promise<Out>,
  settled: (outcome: Outcome<Out>) => void
): () => void => {
  const lifetime = plan.lifetime
  if (lifetime?.closed === true) {
    settled(closedBeforeSending)
    return nothingToCancel
  }
  // One controller per attempt: the timer, an interruption and the store's end all abort the request in flight.
  const controller = new AbortController()
  lifetime?.inFlight.add(controller)
  let timedOut = false
  let done = false
  const timer = setTimeout(() => {
    timedOut = true
    controller.abort()
  }, Retry.timerMs(plan.requestTimeoutMs))
  if (attempt.background) unref(timer)
  const settle = () => {
    done = true
    clearTimeout(timer)
    lifetime?.inFlight.delete(controller)
  }
  let promise: Promise<Out>
  try {
    promise = send(controller.signal)
  } catch (error) {
    promise = Promise.reject(error)
  }
  promise.then(
    (output) => {
      if (done) return
      settle()
      settled({ _tag: "Ok", output })
    },
    (cause: unknown) => {
      if (done) return
      settle()
      settled(decide(plan, attempt, timedOut ? new Failure.RequestTimedOut(plan.requestTimeoutMs) : cause))
    }
  )
  return () => {
    if (done) return
    settle()
    controller.abort()
  }
}
