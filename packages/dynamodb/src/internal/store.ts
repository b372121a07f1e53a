/**
 * The DynamoDB store's operations, assembled: each a single conditional write or read, built from the constant
 * request parts of `expressions` over one shared `StoreContext`.
 *
 * @internal
 */
import type * as LockStore from "@leasehold/lock/LockStore"
import * as Acquire from "./acquire.js"
import * as List from "./list.js"
import * as RenewAndRelease from "./renewAndRelease.js"
import * as Reserve from "./reserve.js"
import * as Semaphore from "./semaphore.js"
import * as SemaphoreAcquire from "./semaphoreAcquire.js"
import * as StoreContext from "./storeContext.js"

/** @internal */
export type Config = StoreContext.Config

/** @internal */
export const make = (config: Config): LockStore.LockStore => {
  const context = StoreContext.make(config)
  return {
    tryAcquire: Acquire.make(context),
    ...RenewAndRelease.make(context),
    reserve: Reserve.make(context),
    ...List.make(context),
    ...Semaphore.make(context),
    maxNameBytes: config.layout.maxNameBytes,
    nameProblem: config.layout.nameProblem,
    semaphoreNameProblem: context.semaphoreKeys.nameProblem,
    semaphoreLeaseProblem: (lease) => SemaphoreAcquire.outlivesTtl(lease, context.ttlRetentionMs)
  }
}
