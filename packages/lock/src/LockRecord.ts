/**
 * The one record a store keeps per lock name.
 *
 * @since 0.1.0
 */

/**
 * A lock's stored state. A released lock keeps its record (with no owner) so that its fence stays monotonic.
 *
 * @since 0.1.0
 * @category models
 */
export interface LockRecord {
  /** The lock name as the user gave it (without any store prefix). */
  readonly name: string
  /** Random per acquisition (128 bits, hex); `undefined` when the lock is free. */
  readonly owner: string | undefined
  /** A readable name for the holding process, for people; `undefined` when free. */
  readonly holder: string | undefined
  /** Epoch ms: the holder's clock when its last acquire or renew started, plus the lease. 0 when free. */
  readonly leaseUntil: number
  /** The lease duration in ms, for observers that do not trust wall clocks (observed takeover). */
  readonly leaseMs: number
  /** Fencing token: strictly increasing per name across holders, processes and releases. */
  readonly fence: number
  /**
   * Changed by every write to the record (acquire, renew, release), whatever any clock says: an observer that sees
   * the same owner, fence and version a full lease apart knows that nobody renewed in between.
   */
  readonly version: number
  /** Epoch ms when the current owner acquired the lock; `undefined` when free. */
  readonly acquiredAt: number | undefined
  /** Optional payload the holder stored with the lock, already encoded. */
  readonly data: string | undefined
}

/**
 * Whether some owner holds the record (whether or not its lease has run out).
 *
 * @since 0.1.0
 * @category predicates
 */
export const isHeld = (record: LockRecord): boolean => record.owner !== undefined

/**
 * Whether a held record's lease may be taken over at `now` (epoch ms) when clocks are trusted within `maxClockSkewMs`.
 * A free record is always available.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isAvailableAt = (record: LockRecord, now: number, maxClockSkewMs: number): boolean =>
  record.owner === undefined || record.leaseUntil + maxClockSkewMs < now

/**
 * The most `data` a lock may carry, in UTF-8 bytes: DynamoDB's 400 KB item limit, less room for the longest key, the
 * holder and the lease fields. Every store refuses more, so that what works in tests works in production.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxDataBytes = 392 * 1024

/**
 * The longest readable holder name, in UTF-8 bytes.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxHolderBytes = 1024
