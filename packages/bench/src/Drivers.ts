/**
 * The contention drivers by id, each loaded on demand so that a worker process loads one library only.
 */
import type { Driver } from "./ContentionDriver.js"

const loaders = {
  leasehold: () => import("./contenders/LeaseholdDriver.js"),
  "leasehold-election": () => import("./contenders/LeaseholdElectionDriver.js"),
  "leasehold-semaphore": () => import("./contenders/LeaseholdSemaphoreDriver.js"),
  "dynamodb-lock-client": () => import("./contenders/DynamodbLockClientDriver.js"),
  deliveryhero: () => import("./contenders/DeliveryheroDriver.js"),
  "effect-distributed-lock": () => import("./contenders/EffectDistributedLockDriver.js")
} as const

export type Id = keyof typeof loaders

/**
 * Leasehold first, then the peers in the order of the uncontended table: the rows of every contention and takeover
 * table.
 */
export const ids: ReadonlyArray<Id> = ["leasehold", "dynamodb-lock-client", "deliveryhero", "effect-distributed-lock"]

/**
 * Leasehold's primitives other than the lock (leader election, semaphores): a row each in the contention table, after
 * the peers, and none in the takeover table (a dead leader or permit holder is taken over as a lock's holder is).
 */
export const leaseholdOnly: ReadonlyArray<Id> = ["leasehold-election", "leasehold-semaphore"]

export const isId = (id: string): id is Id => Object.hasOwn(loaders, id)

export const load = async (id: Id): Promise<Driver> => (await loaders[id]()).driver
