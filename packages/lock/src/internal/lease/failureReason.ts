/**
 * A failure as the one line a warning gives it: the error's message, or "no answer within …" for a timeout. No cause
 * and no stack: a store that fails tends to fail for many leases at once, and a stack per lease would add to the load.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as EffectLine from "../effectLine.js"

/** @internal */
export const failureReason = (cause: Cause.Cause<unknown>, timeout: Duration.Duration): string => {
  const error = Cause.squash(cause)
  if (EffectLine.isTimeoutError(error)) return `no answer within ${Duration.format(timeout)}`
  return error instanceof Error ? error.message : String(error)
}
