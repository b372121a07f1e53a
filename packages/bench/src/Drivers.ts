/**
 * The contention drivers by id, each loaded on demand so that a worker process loads one library only.
 */
import type { Driver } from "./ContentionDriver.js"

const loaders = {
  leasehold: () => import("./contenders/LeaseholdDriver.js"),
  "leasehold-election": () => import("./contenders/LeaseholdElectionDriver.js"),
  "dynamodb-lock-client": () => import("./contenders/DynamodbLockClientDriver.js"),
  deliveryhero: () => import("./contenders/DeliveryheroDriver.js"),
  "effect-distributed-lock": () => import("./contenders/EffectDistributedLockDriver.js")
} as const

export type Id = keyof typeof loaders

/**
 * Leasehold first, then the peers in the order of the uncontended table: the rows of every contention and takeover
 * table. `leasehold-election` is loaded by id for its own row of the contention table.
 */
export const ids: ReadonlyArray<Id> = ["leasehold", "dynamodb-lock-client", "deliveryhero", "effect-distributed-lock"]

export const isId = (id: string): id is Id => Object.hasOwn(loaders, id)

export const load = async (id: Id): Promise<Driver> => (await loaders[id]()).driver
