/**
 * A semaphore acquisition's options: the lock's lease options, resolved the same way, with the limit, the permits and
 * the smaller data budget of a semaphore holder. All checked before any store call.
 *
 * @internal
 */
import * as Either from "effect/Either"
import { LockConfigError } from "../LockError.js"
import type { LockStore } from "../LockStore.js"
import type { SemaphoreOptions } from "../Semaphore.js"
import { dataProblem, permitsProblem } from "../SemaphoreRecord.js"
import type { PermitTakeover } from "../SemaphoreStore.js"
import * as Options from "./options.js"

/** @internal */
export interface Resolved {
  readonly lease: Options.Resolved
  readonly limit: number
  readonly permits: number
}

const fail = (option: string, message: string) => Either.left(new LockConfigError({ option, message }))

/**
 * The data a holder will store: the call's, or else the app-wide default's, as `Options.resolveEither` overlays them;
 * with where it comes from, for messages.
 */
const dataOf = (defaults: Options.Input, options: SemaphoreOptions) =>
  options.data !== undefined
    ? { data: options.data, from: "" }
    : { data: defaults.data, from: "the app-wide default data (from Lock.layerDefaults) does not fit a semaphore: " }

/**
 * Validates `options` over the lock defaults, as a lock's, and then what is a semaphore's own: the limit and permits,
 * the data against a holder's budget and the lease against what `store` can keep. The data and the lease are checked
 * as resolved, the app-wide defaults included, so that a default no semaphore can have fails here too.
 *
 * @internal
 */
export const resolve = (
  defaults: Options.Input,
  options: SemaphoreOptions,
  defaultHolder: string,
  store: Pick<LockStore, "semaphoreLeaseProblem">
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
  // Before the lock's own checks, whose budget for data is far larger: the message is then a semaphore's.
  const { data, from } = dataOf(defaults, options)
  const badData = dataProblem(data)
  if (badData !== undefined) return fail("data", from + badData)
  return Either.flatMap(Options.resolveEither(defaults, options, defaultHolder), (lease) => {
    const takeover: PermitTakeover = lease.takeover === "absolute"
      ? { _tag: "Absolute", maxClockSkewMs: lease.maxClockSkewMs }
      : { _tag: "Observed" }
    const leaseProblem = store.semaphoreLeaseProblem({ leaseMs: lease.leaseMs, takeover })
    return leaseProblem === undefined
      ? Either.right({ lease, limit: options.limit, permits })
      : fail("lease", leaseProblem)
  })
}
