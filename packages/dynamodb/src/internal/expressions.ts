/**
 * The parts of every store request that do not depend on the request, built once: a lock operation is on the hot
 * path of every acquisition and heartbeat. The SDK only reads its input, so one object serves every request (frozen:
 * an SDK that wrote to it would fail loudly instead of changing other requests).
 *
 * @internal
 */
import type { AttributeValue } from "@aws-sdk/client-dynamodb"
import type { StoreOperation } from "@leasehold/lock/LockError"
import * as Item from "./item.js"
import type * as Transport from "./transport.js"

/** @internal */
export type ItemMap = Record<string, AttributeValue>

const a = Item.attributes

/** `#owner` for `owner`: every attribute goes through a placeholder (owner and ttl are reserved words). */
const names = (...attributes: ReadonlyArray<string>): Readonly<Record<string, string>> =>
  Object.freeze(Object.fromEntries(attributes.map((attribute) => [`#${attribute}`, attribute])))

/** @internal */
export const num = (n: number): AttributeValue => ({ N: String(n) })

/** @internal */
export const str = (s: string): AttributeValue => ({ S: s })

/**
 * DynamoDB TTL wants epoch seconds; rounding up keeps the row at least the full retention.
 *
 * @internal
 */
export const ttlAt = (epochMs: number, retentionMs: number): number => Math.ceil((epochMs + retentionMs) / 1000)

/** @internal */
export const one = Object.freeze(num(1))

/** @internal */
export const zero = Object.freeze(num(0))

/** Every write changes the version, whatever the clocks say: observed takeover watches it. */
const nextVersion = `#${a.version} = if_not_exists(#${a.version}, :zero) + :one`

const acquireSet = `SET #${a.owner} = :owner, #${a.holder} = :holder, #${a.leaseUntil} = :leaseUntil, ` +
  `#${a.leaseMs} = :leaseMs, #${a.acquiredAt} = :now, #${a.ttl} = :ttl, ${nextVersion}, ` +
  // A new name, or a row deleted by TTL, restarts its fence from the writer's clock, as the memory store does: above
  // every earlier token as long as TTL retention is far longer than clock skew.
  `#${a.fence} = if_not_exists(#${a.fence}, :now) + :one`

/** @internal */
/** The acquiring write clears the reservation: whoever reserved is in, or its reservation had lapsed. */
const clearReservation = `#${a.reservedBy}, #${a.reservedUntil}, #${a.reservedSince}`

/** @internal */
export const acquireUpdateWithData = `${acquireSet}, #${a.data} = :data REMOVE #${a.sequence}, ${clearReservation}`

/** @internal */
export const acquireUpdateWithoutData = `${acquireSet} REMOVE #${a.data}, #${a.sequence}, ${clearReservation}`

/** @internal */
export const acquireNames = names(
  a.sequence,
  a.owner,
  a.holder,
  a.leaseUntil,
  a.leaseMs,
  a.acquiredAt,
  a.ttl,
  a.fence,
  a.data,
  a.version,
  a.reservedBy,
  a.reservedUntil,
  a.reservedSince,
  Item.semaphoreAttribute
)

/**
 * No one else's live reservation: none, the caller's own, or one that lapsed before now on the caller's clock.
 * `:owner` is the caller, `:now` the request time.
 */
const notReservedForOther = `(attribute_not_exists(#${a.reservedBy}) OR #${a.reservedBy} = :owner OR ` +
  `#${a.reservedUntil} < :now)`

/**
 * Not a semaphore's item: in sort-key mode the lock `#x` has the key of the semaphore `x` (see `semaphoreKeys.ts`),
 * and a lock write must not turn that item into both.
 */
const notSemaphore = `attribute_not_exists(#${Item.semaphoreAttribute})`

/** @internal */
export const freeOnlyExpression = `attribute_not_exists(#${a.owner}) AND ${notReservedForOther} AND ${notSemaphore}`

/** @internal */
export const freeOrExpiredExpression = `(attribute_not_exists(#${a.owner}) OR #${a.leaseUntil} < :cutoff) AND ` +
  `${notReservedForOther} AND ${notSemaphore}`

/** @internal */
export const freeOrStaleExpression = `(attribute_not_exists(#${a.owner}) OR ` +
  `(#${a.owner} = :staleOwner AND #${a.fence} = :staleFence AND ` +
  `(#${a.version} = :staleVersion OR (attribute_not_exists(#${a.version}) AND :staleVersion = :zero)))) AND ` +
  `${notReservedForOther} AND ${notSemaphore}`

/**
 * A reservation changes neither the version nor the holder fields: observed takeover watches them.
 *
 * @internal
 */
export const reserveUpdate =
  `SET #${a.reservedBy} = :owner, #${a.reservedUntil} = :reservedUntil, #${a.reservedSince} = :waitingSince`

/**
 * A lock's row (every row has a fence: it stays when the lock is freed; a semaphore's has one too, and a `limit`), and
 * no one else's live reservation, or one whose reserver began to wait after the caller.
 *
 * @internal
 */
export const reserveCondition = `attribute_exists(#${a.fence}) AND ${notSemaphore} AND ` +
  `(${notReservedForOther} OR #${a.reservedSince} > :waitingSince)`

/** @internal */
export const reserveNames = names(a.fence, a.reservedBy, a.reservedUntil, a.reservedSince, Item.semaphoreAttribute)

const renewSet = `SET #${a.leaseUntil} = :leaseUntil, #${a.leaseMs} = :leaseMs, #${a.ttl} = :ttl, ${nextVersion}`

/** @internal */
export const renewUpdate = `${renewSet}, #${a.sequence} = :sequence`

/** A renew without a write sequence (from a caller that never gives up on one) leaves the record's as it is. */
const unorderedRenewUpdate = renewSet

/** @internal */
export const renewCondition = `#${a.owner} = :owner AND #${a.fence} = :fence`

/**
 * A renew applies only above the lease's write sequence: one delivered after a newer one changes nothing.
 *
 * @internal
 */
export const orderedRenewCondition =
  `${renewCondition} AND (attribute_not_exists(#${a.sequence}) OR #${a.sequence} < :sequence)`

const renewAttributes = [a.leaseUntil, a.leaseMs, a.ttl, a.owner, a.fence, a.version]

/**
 * The attribute names of a renew, by whether it sets or checks the write sequence and whether it sets `data`: DynamoDB
 * refuses a name that no expression uses.
 *
 * @internal
 */
export const renewNames = {
  sequenced: names(...renewAttributes, a.sequence),
  sequencedWithData: names(...renewAttributes, a.sequence, a.data),
  unordered: names(...renewAttributes),
  unorderedWithData: names(...renewAttributes, a.data)
} as const

/**
 * A renew that also moves the lease to a new owner (`newOwner`: a hand-off's resume), keeping the fence: the new
 * owner's write sequence starts at this write's.
 */
const renewUpdateMovingOwner = `${renewUpdate}, #${a.owner} = :newOwner`

/**
 * The update expression of a renew: the heartbeat's as built once, or with the owner moved, and with `data` set or
 * removed in the same write (a data update, which is rare, builds its string).
 *
 * @internal
 */
export const renewUpdateFor = (
  setData: { readonly data: string | undefined } | undefined,
  movesOwner: boolean,
  ordered: boolean
): string => {
  const renew = movesOwner ? renewUpdateMovingOwner : ordered ? renewUpdate : unorderedRenewUpdate
  if (setData === undefined) return renew
  return setData.data === undefined ? `${renew} REMOVE #${a.data}` : `${renew}, #${a.data} = :data`
}

/** What a release clears or sets, and with it a force release (which also drops the reservation). */
const clearAttributes = [a.leaseUntil, a.ttl, a.owner, a.holder, a.acquiredAt, a.data, a.version, a.sequence]
const forceClearAttributes = [...clearAttributes, a.reservedBy, a.reservedUntil, a.reservedSince]

/**
 * The row stays on release (its fence must keep increasing); TTL removes it once idle for the retention.
 *
 * @internal
 */
export const clearUpdate = `SET #${a.leaseUntil} = :zero, #${a.ttl} = :ttl, ${nextVersion} ` +
  `REMOVE #${a.owner}, #${a.holder}, #${a.acquiredAt}, #${a.data}, #${a.sequence}`

/** @internal */
export const clearNames = names(...clearAttributes)

/**
 * An operator's release also drops the reservation: nobody is left waiting behind a lock an operator freed.
 *
 * @internal
 */
export const forceClearUpdate = `SET #${a.leaseUntil} = :zero, #${a.ttl} = :ttl, ${nextVersion} ` +
  `REMOVE #${a.owner}, #${a.holder}, #${a.acquiredAt}, #${a.data}, #${a.sequence}, ${clearReservation}`

/** @internal */
export const forceClearNames = names(...forceClearAttributes)

/** @internal */
export const clearNamesWithFence = names(...clearAttributes, a.fence)

/** @internal */
export const releaseByOwner = `#${a.owner} = :owner`

/** @internal */
export const releaseByOwnerAndFence = `#${a.owner} = :owner AND #${a.fence} = :fence`

/** @internal */
export const forceReleaseCondition = `attribute_exists(#${a.owner})`

/**
 * An operator's release of the holder it saw: no other, whenever it lands.
 *
 * @internal
 */
export const forceReleaseOfHolderCondition = releaseByOwnerAndFence

/** @internal */
export const forceClearNamesWithFence = names(...forceClearAttributes, a.fence)

/**
 * The calls of each operation, as errors name them.
 *
 * @internal
 */
export const calls = {
  tryAcquire: { operation: "tryAcquire", action: "UpdateItem", reportsUnknownOutcomes: true },
  renew: { operation: "renew", action: "UpdateItem" },
  release: { operation: "release", action: "UpdateItem" },
  reserve: { operation: "reserve", action: "UpdateItem" },
  forceRelease: { operation: "forceRelease", action: "UpdateItem" },
  tryAcquirePermits: { operation: "tryAcquirePermits", action: "UpdateItem", reportsUnknownOutcomes: true },
  renewPermits: { operation: "renewPermits", action: "UpdateItem" },
  releasePermits: { operation: "releasePermits", action: "UpdateItem" },
  query: { operation: "list", action: "Query" },
  scan: { operation: "list", action: "Scan" }
} as const satisfies Record<string, Transport.Call>

/**
 * The consistent reads, of `inspect` and of the operations that read the holder after a failed condition.
 *
 * @internal
 */
export const getItemCalls = {
  tryAcquire: { operation: "tryAcquire", action: "GetItem" },
  renew: { operation: "renew", action: "GetItem" },
  release: { operation: "release", action: "GetItem" },
  reserve: { operation: "reserve", action: "GetItem" },
  inspect: { operation: "inspect", action: "GetItem" },
  tryAcquirePermits: { operation: "tryAcquirePermits", action: "GetItem" },
  renewPermits: { operation: "renewPermits", action: "GetItem" },
  releasePermits: { operation: "releasePermits", action: "GetItem" },
  inspectSemaphore: { operation: "inspectSemaphore", action: "GetItem" }
} as const satisfies Partial<Record<StoreOperation, Transport.Call>>
