/**
 * Who a record names as its holder: a random owner id per acquisition, and a readable holder name per process.
 *
 * @since 1.0.0
 */

/**
 * The holder name when the options give none: the process id where the platform has one, for people reading a record.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultHolder: string = typeof globalThis.process?.pid === "number"
  ? `pid ${globalThis.process.pid}`
  : "leasehold"

/** Random bytes drawn ahead, in batches of many owners. */
const pool = new Uint8Array(4096)
let offset = pool.length
const hex = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"))

/** The bytes of one owner id: 128 bits, so that two acquisitions anywhere never draw the same. */
const ownerBytes = 16

/**
 * A fresh owner id of 128 random bits, as hex: owners must be unique across processes, so they come from the
 * platform's CSPRNG (not a runtime's seeded random). Bytes are drawn in batches, since one `getRandomValues` call
 * costs far more than slicing an owner's bytes out of a buffer.
 *
 * @since 1.0.0
 * @category constructors
 */
export const random = (): string => {
  if (offset + ownerBytes > pool.length) {
    globalThis.crypto.getRandomValues(pool)
    offset = 0
  }
  const digits = new Array<string>(ownerBytes)
  for (let i = 0; i < ownerBytes; i++) digits[i] = hex[pool[offset + i]!]!
  offset += ownerBytes
  // One flat string: `+=` would keep a rope piece per byte alive for as long as the lock is held.
  return digits.join("")
}
