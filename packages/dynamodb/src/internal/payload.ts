/**
 * The size limits of what a holder stores with a lock (`data`, `holder`), checked before any request.
 *
 * @internal
 */
import type * as LockStore from "@leasehold/lock/LockStore"
import * as Keys from "./keys.js"

/**
 * The largest `data` a lock carries, in UTF-8 bytes, as `Lock` allows it. DynamoDB's item limit is 400 KB (409,600
 * bytes, attribute names included); this leaves 8 KB for the key (at most 2,048 + 1,024 bytes with a sort key), the
 * holder and the lease fields.
 *
 * @internal
 */
export const maxDataBytes = 392 * 1024

/**
 * The longest `holder` a lock carries, in UTF-8 bytes, as `Lock` allows it: a readable name, not a payload.
 *
 * @internal
 */
export const maxHolderBytes = 1024

/** Whether `value` fits `maxBytes` of UTF-8; a UTF-16 code unit takes at most 3 bytes, so short ones need no count. */
const fits = (value: string, maxBytes: number): boolean =>
  value.length * 3 <= maxBytes || Keys.utf8Bytes(value) <= maxBytes

/**
 * What is wrong with the payload of an acquire, or `undefined`. `Lock` checks first (with `LockConfigError`); this is
 * for direct users of the store, whose oversized write DynamoDB would refuse only after a round trip, or, for data
 * just under its item limit, accept with no room left to grow.
 *
 * @internal
 */
export const check = (request: LockStore.AcquireRequest): string | undefined => {
  const { data, holder } = request
  if (typeof holder !== "string") return `holder must be a string; got ${typeof holder}`
  if (!fits(holder, maxHolderBytes)) {
    return `holder is ${Keys.utf8Bytes(holder)} UTF-8 bytes, over the limit of ${maxHolderBytes}: use a shorter ` +
      `readable name`
  }
  if (data === undefined) return undefined
  if (typeof data !== "string") return `data must be a string (encode it first); got ${typeof data}`
  if (!fits(data, maxDataBytes)) {
    return `data is ${Keys.utf8Bytes(data)} UTF-8 bytes, over the limit of ${maxDataBytes} (392 KiB, what a ` +
      `DynamoDB item holds beside the key and the lease): store a reference to the payload instead`
  }
  return undefined
}
