/**
 * The DynamoDB store's operations, assembled: each a single conditional write or read (or, for `tryAcquireAll`, one
 * transaction of them and a read of what it wrote), built from the core's request parts over one shared `StoreContext`.
 *
 * @internal
 */
import * as SemaphoreWrites from "@leasehold/core/dynamodb/SemaphoreWrites"
import type * as LockStore from "@leasehold/lock/LockStore"
import * as List from "../listing/list.js"
import * as Acquire from "../lock/acquire.js"
import * as AcquireAll from "../lock/acquireAll.js"
import * as RenewAndRelease from "../lock/renewAndRelease.js"
import * as Reserve from "../lock/reserve.js"
import * as Semaphore from "../semaphore/semaphore.js"
import * as StoreContext from "./storeContext.js"

/** @internal */
export type Config = StoreContext.Config

/** @internal */
export const make = (config: Config): LockStore.LockStore => {
  const context = StoreContext.make(config)
  return {
    tryAcquire: Acquire.make(context),
    tryAcquireAll: AcquireAll.make(context),
    ...RenewAndRelease.make(context),
    reserve: Reserve.make(context),
    ...List.make(context),
    ...Semaphore.make(context),
    maxNameBytes: config.layout.maxNameBytes,
    nameProblem: config.layout.nameProblem,
    semaphoreNameProblem: context.semaphoreKeys.nameProblem,
    semaphoreLeaseProblem: (lease) => SemaphoreWrites.outlivesTtl(lease, context.ttlRetentionMs)
  }
}
