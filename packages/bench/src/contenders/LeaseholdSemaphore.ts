/**
 * Leasehold's semaphore, uncontended: `Semaphore.withPermits(name, Effect.void, { limit })` on the DynamoDB store,
 * one permit of a limit above one, so that it is a semaphore and not a lock in disguise.
 */
import * as Semaphore from "@leasehold/lock/Semaphore"
import * as Effect from "effect/Effect"
import * as Leasehold from "./Leasehold.js"

export const limit = 2

/** Take and give back one permit of `key`. */
export const cycle: Leasehold.Cycle = (key) => Semaphore.withPermits(key, Effect.void, { limit })

export const name = `Leasehold Semaphore (limit ${limit})`

export const make = Leasehold.cycling(name, cycle)
