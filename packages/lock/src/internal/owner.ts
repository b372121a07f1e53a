/**
 * Who holds a lock: a random owner per acquisition, and a readable holder name per process.
 *
 * @internal
 */

/**
 * The holder name when the options give none.
 *
 * @internal
 */
export const defaultHolder: string = typeof globalThis.process?.pid === "number"
  ? `pid ${globalThis.process.pid}`
  : "leasehold"

const pool = new Uint8Array(4096)
let offset = pool.length
const hex = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"))

/**
 * 128 random bits: owners must be unique across processes, so they come from the platform's CSPRNG. Bytes are drawn
 * in batches, since one `getRandomValues` call costs far more than slicing 16 bytes out of a buffer.
 *
 * @internal
 */
export const randomOwner = (): string => {
  if (offset + 16 > pool.length) {
    globalThis.crypto.getRandomValues(pool)
    offset = 0
  }
  const digits = new Array<string>(16)
  for (let i = 0; i < 16; i++) digits[i] = hex[pool[offset + i]!]!
  offset += 16
  // One flat string: `+=` would keep sixteen rope pieces alive for as long as the lock is held.
  return digits.join("")
}
