/**
 * A semaphore acquisition's options: the lock's lease options, resolved the same way, with the limit, the permits and
 * the smaller data budget of a semaphore holder (the core's `SemaphoreOptions`). All checked before any store call.
 *
 * @internal
 */
import type * as OptionCheck from "@leasehold/core/options/OptionCheck"
import * as CoreSemaphoreOptions from "@leasehold/core/options/SemaphoreOptions"
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
): OptionCheck.OptionCheck<Resolved> =>
  Options.flatMapCheck(Options.checkDefaults(defaults), () =>
    Options.flatMapCheck(
      CoreSemaphoreOptions.checkPermits(options, defaults.data),
      (permits) =>
        Options.flatMapCheck(
          Options.resolveCheck(defaults, options, defaultHolder),
          (lease) => CoreSemaphoreOptions.withLease(permits, lease, (request) => store.semaphoreLeaseProblem(request))
        )
    ))
