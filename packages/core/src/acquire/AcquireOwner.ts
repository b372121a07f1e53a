/**
 * The owner id an acquire writes with, and what it knows of that id's writes. Both acquire loops (a lock's, a
 * semaphore's) keep one, as plain data they change in place; the runtime draws the owner ids.
 *
 * A write whose answer never came (a timeout, a dropped connection, an interruption) may still be applied, at any time
 * later: the network may deliver it after its sender gave up, out of order with the sender's later writes. So:
 *
 * - A lease that bears the owner id may have been set by any of its writes whose outcome is unknown: it is dated from
 *   the earliest of them (`leaseStart`), which can only make the local deadline earlier than the lease's. An answer
 *   that came later (a conflict) proves nothing about such a write: it may land after it.
 * - A write given back (released by owner, its fence unknown) may be delivered after the acquire tried again. The
 *   acquire then goes on with a fresh owner id (`renew`), so that a give-back can only ever free a lease of its own
 *   owner id, never a later acquisition. The owner id names the acquisition's writes up to a give-back, no further.
 * - A write refused as a whole (the store says it was not applied: a missing table, a refused connection) was not
 *   applied: nothing to date, nothing to give back.
 *
 * @since 1.0.0
 */

/**
 * @since 1.0.0
 * @category models
 */
export interface AcquireOwner {
  /** The owner id of the next write. */
  owner: string
  /** Monotonic ms just before the write in flight went out; `undefined` when none is. */
  inFlightSince: number | undefined
  /** Monotonic ms just before the earliest write with `owner` whose outcome is unknown for good; `undefined` if none. */
  unknownSince: number | undefined
}

/**
 * A fresh acquire writing as `owner`, with nothing written yet.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (owner: string): AcquireOwner => ({ owner, inFlightSince: undefined, unknownSince: undefined })

/**
 * A write with the owner id goes out at `sentAt` (monotonic ms). Until it answers, its outcome is unknown.
 *
 * @since 1.0.0
 * @category mutations
 */
export const sending = (self: AcquireOwner, sentAt: number): void => {
  self.inFlightSince = sentAt
}

/**
 * The write in flight answered (acquired, or a conflict): its outcome is known. Earlier unknown ones stay unknown: the
 * answer proves nothing about a write that may land after it.
 *
 * @since 1.0.0
 * @category mutations
 */
export const answered = (self: AcquireOwner): void => {
  self.inFlightSince = undefined
}

/**
 * The write in flight failed: its outcome is unknown for good, unless the store knows that nothing was applied
 * (`mayHaveApplied` false).
 *
 * @since 1.0.0
 * @category mutations
 */
export const failed = (self: AcquireOwner, mayHaveApplied: boolean | undefined): void => {
  const sentAt = self.inFlightSince
  self.inFlightSince = undefined
  if (mayHaveApplied === false || sentAt === undefined) return
  self.unknownSince = Math.min(sentAt, self.unknownSince ?? sentAt)
}

/**
 * When a lease that bears the owner id began, at the earliest: its write went out no earlier than the earliest write of
 * the owner whose outcome is unknown, or than the write at `sentAt` that answered with it.
 *
 * @since 1.0.0
 * @category getters
 */
export const leaseStart = (self: AcquireOwner, sentAt: number): number => Math.min(sentAt, self.unknownSince ?? sentAt)

/**
 * Whether a write with the owner id may have applied without our knowing: what to give back if the acquire ends.
 *
 * @since 1.0.0
 * @category predicates
 */
export const mayHaveWritten = (self: AcquireOwner): boolean =>
  self.inFlightSince !== undefined || self.unknownSince !== undefined

/**
 * After a give-back: the next writes go with a fresh owner id, `owner`, which nothing given back can touch.
 *
 * @since 1.0.0
 * @category mutations
 */
export const renew = (self: AcquireOwner, owner: string): void => {
  self.owner = owner
  self.inFlightSince = undefined
  self.unknownSince = undefined
}
