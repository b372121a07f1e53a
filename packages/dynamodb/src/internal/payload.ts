/**
 * The size limits of what a holder stores with a lock (`data`, `holder`), checked before any request.
 *
 * @internal
 */
import * as LockRecord from "@leasehold/lock/LockRecord"
import type * as LockStore from "@leasehold/lock/LockStore"
import * as Keys from "./keys.js"

/** The limits `Lock` and the memory store apply, so that every store refuses the same payloads. */
const { maxDataBytes, maxHolderBytes } = LockRecord

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
  // DynamoDB would store a lone surrogate as U+FFFD: what is read back would not be what was written.
  if (!Keys.isWellFormed(holder)) return "holder is not well-formed Unicode (it holds a lone surrogate)"
  if (!fits(holder, maxHolderBytes)) {
    return `holder is ${Keys.utf8Bytes(holder)} UTF-8 bytes, over the limit of ${maxHolderBytes}: use a shorter ` +
      `readable name`
  }
  if (data === undefined) return undefined
  if (typeof data !== "string") return `data must be a string (encode it first); got ${typeof data}`
  if (!Keys.isWellFormed(data)) return "data is not well-formed Unicode (it holds a lone surrogate)"
  if (!fits(data, maxDataBytes)) {
    return `data is ${Keys.utf8Bytes(data)} UTF-8 bytes, over the limit of ${maxDataBytes} (392 KiB, what a ` +
      `DynamoDB item holds beside the key and the lease): store a reference to the payload instead`
  }
  return undefined
}
