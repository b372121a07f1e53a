/**
 * The retry plan of one store request: which failures are tried again, after how long, and how long one attempt may
 * take. The shell keeps the timers, the sleeps and the random draws; these are the numbers it uses.
 *
 * @since 1.0.0
 */
import * as DurationOption from "../options/DurationOption.js"
import * as Failure from "./Failure.js"

/**
 * Node fires a longer `setTimeout` at once; a request timeout past it (about 24.8 days) is as good as none.
 *
 * @since 1.0.0
 * @category constants
 */
export const maxTimerMs: number = DurationOption.maxMs

/**
 * The lower bound of a backoff's jitter: each backoff is its nominal delay times a uniform factor in
 * [`jitterMin`, `jitterMax`] (`Schedule.jittered`'s bounds).
 *
 * @since 1.0.0
 * @category constants
 */
export const jitterMin = 0.8

/**
 * The upper bound of a backoff's jitter.
 *
 * @since 1.0.0
 * @category constants
 */
export const jitterMax = 1.2

/**
 * The timer of one attempt: the request timeout, or the longest timer Node keeps.
 *
 * @since 1.0.0
 * @category plan
 */
export const timerMs = (requestTimeoutMs: number): number => Math.min(requestTimeoutMs, maxTimerMs)

/**
 * The backoff before attempt `attempts` (1-based, so at least 2): base * 2^(attempts - 2), times the jitter drawn.
 *
 * @since 1.0.0
 * @category plan
 */
export const backoffMs = (retryBaseDelayMs: number, attempts: number, jitter: number): number =>
  retryBaseDelayMs * 2 ** (attempts - 2) * jitter

/**
 * Whether attempt `attempts` that failed with `error` is tried again: while retries are left, for a transient
 * failure, unless the call reports unknown outcomes and this one may have been applied (an acquire must know of every
 * write of its owner that may still land).
 *
 * @since 1.0.0
 * @category plan
 */
export const retries = (
  attempts: number,
  maxRetries: number,
  error: unknown,
  reportsUnknownOutcomes: boolean
): boolean =>
  attempts <= maxRetries && Failure.isTransient(error) &&
  !(reportsUnknownOutcomes && Failure.mayHaveApplied(error))

/**
 * A response header's value by its name in lower case: Node's HTTP handler lowercases header names, so the direct
 * lookup answers every response it parses; other handlers are searched without regard to case.
 *
 * @since 1.0.0
 * @category headers
 */
export const headerOf = (headers: unknown, name: string): string | undefined => {
  if (typeof headers !== "object" || headers === null) return undefined
  const direct: unknown = (headers as Record<string, unknown>)[name]
  if (typeof direct === "string") return direct
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name && typeof value === "string") return value
  }
  return undefined
}
