/**
 * The owner id an acquire writes with, and what it knows of that id's writes (see `@leasehold/core/acquire/AcquireOwner`
 * for why a lease is dated from the earliest unknown write, and why a give-back moves on to a fresh owner id). What
 * stays here is what needs the runtime: the owner ids, drawn from the platform's CSPRNG, and the store's errors.
 *
 * @internal
 */
import * as AcquireOwner from "@leasehold/core/acquire/AcquireOwner"
import { random as randomOwner } from "@leasehold/core/record/Owner"
import type { LockStoreError } from "../../LockError.js"

/** @internal */
export type { AcquireOwner } from "@leasehold/core/acquire/AcquireOwner"

/** @internal */
export const make = (): AcquireOwner.AcquireOwner => AcquireOwner.make(randomOwner())

/**
 * The write in flight failed: its outcome is unknown for good, unless the store knows that nothing was applied.
 *
 * @internal
 */
export const failed = (self: AcquireOwner.AcquireOwner, error: LockStoreError): void =>
  AcquireOwner.failed(self, error.mayHaveApplied)

/**
 * After a give-back: the next writes go with a fresh owner id, which nothing given back can touch.
 *
 * @internal
 */
export const renew = (self: AcquireOwner.AcquireOwner): void => AcquireOwner.renew(self, randomOwner())

/** @internal */
export const { answered, mayHaveWritten, sending } = AcquireOwner
