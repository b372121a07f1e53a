/**
 * Who holds a lock: a random owner per acquisition, and a readable holder name per process (the core's `Owner`).
 *
 * @internal
 */
import * as Owner from "@leasehold/core/record/Owner"

/**
 * The holder name when the options give none.
 *
 * @internal
 */
export const defaultHolder: string = Owner.defaultHolder

/**
 * A fresh owner id of 128 random bits from the platform's CSPRNG.
 *
 * @internal
 */
export const randomOwner: () => string = Owner.random
