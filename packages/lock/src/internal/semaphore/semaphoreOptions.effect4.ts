/**
 * A semaphore acquisition's options: the lock's lease options, resolved the same way, with the limit, the permits and
 * the smaller data budget of a semaphore holder (the core's `SemaphoreOptions`). All checked before any store call.
 *
 * @internal
 */
import * as CoreSemaphoreOptions from "@leasehold/core/options/SemaphoreOptions"
import * as Result from "effect/Result"
import type { LockConfigError } from "../../LockError.js"
import type { LockStore } from "../../LockStore.js"
import type { SemaphoreOptions } from "../../Semaphore.js"
import * as Options from "../options/options.js"

/** @internal */
export type Resolved = CoreSemaphoreOptions.Resolved

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
): Result.Result<Resolved, LockConfigError> =>
  Result.flatMap(Options.checkDefaults(defaults), () =>
    Result.flatMap(
      Options.toResult(CoreSemaphoreOptions.checkPermits(options, defaults.data)),
      (permits) =>
        Result.flatMap(
          Options.resolveResult(defaults, options, defaultHolder),
          (lease) =>
            Options.toResult(
              CoreSemaphoreOptions.withLease(permits, lease, (request) => store.semaphoreLeaseProblem(request))
            )
        )
    ))
