/**
 * A semaphore acquisition's options: the lock's lease options, resolved the same way, with the limit, the permits and
 * the smaller data budget of a semaphore holder. All checked before any store call.
 *
 * @internal
 */
import * as Either from "effect/Either"
import { LockConfigError } from "../LockError.js"
import type { SemaphoreOptions } from "../Semaphore.js"
import { dataProblem, permitsProblem } from "../SemaphoreRecord.js"
import * as Options from "./options.js"

/** @internal */
export interface Resolved {
  readonly lease: Options.Resolved
  readonly limit: number
  readonly permits: number
}

const fail = (option: string, message: string) => Either.left(new LockConfigError({ option, message }))

/**
 * Validates `options` over the lock defaults, as a lock's, and then what is a semaphore's own.
 *
 * @internal
 */
export const resolve = (
  defaults: Options.Input,
  options: SemaphoreOptions,
  defaultHolder: string
): Either.Either<Resolved, LockConfigError> => {
  if (typeof options !== "object" || options === null) {
    return fail("limit", `a semaphore needs options with its limit, e.g. { limit: 4 }; got ${String(options)}`)
  }
  const permits = options.permits ?? 1
  // The limit alone first (1 permit always fits a valid one), so that each problem names its own option.
  const limitProblem = permitsProblem(options.limit, 1)
  if (limitProblem !== undefined) return fail("limit", limitProblem)
  const problem = permitsProblem(options.limit, permits)
  if (problem !== undefined) return fail("permits", problem)
  const data = dataProblem(options.data)
  if (data !== undefined) return fail("data", data)
  return Either.map(
    Options.resolveEither(defaults, options, defaultHolder),
    (lease) => ({ lease, limit: options.limit, permits })
  )
}
