/**
 * A lease session: one record, renewed by one heartbeat, that many locks are held under. The session's record is a
 * lock record of its own, under a name no user lock takes (`recordName`), held by the session's id; a lock held under
 * the session names that id (`LockRecord.session`) and is never renewed by itself.
 *
 * A lock under a session carries `heldUntil` as its lease end and its lease: a process that knows nothing of sessions
 * judges a lease by those fields alone (absolute takeover: `leaseUntil` plus the skew bound; observed takeover: the
 * version unchanged for `leaseMs`), so it never takes such a lock over, whether the session lives or not. A process
 * that knows sessions takes it over only once it has judged the session dead (`SessionVerdict`), with a write
 * conditioned on the holder it judged (`LockProtocol.AcquireRequest.orphan`).
 *
 * @since 1.0.0
 */
import type { LockRecord } from "../record/LockRecord.js"

/**
 * The lease end, in epoch ms, of a lock held under a session: 9999-12-31T23:59:59.999Z, which every `Date` shows and
 * no clock reaches. Its lease (`leaseMs`) is the same number: no observer waits that long.
 *
 * @since 1.0.0
 * @category constants
 */
export const heldUntil = 253_402_300_799_999

/**
 * The names of sessions' records begin with this; a lock name that does is refused, so that no lock shares a
 * session's record.
 *
 * @since 1.0.0
 * @category constants
 */
export const recordNamePrefix = "leasehold-session/"

/**
 * The name of the record of the session `id`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const recordName = (id: string): string => `${recordNamePrefix}${id}`

/**
 * Whether `name` is a session record's, not a lock's.
 *
 * @since 1.0.0
 * @category predicates
 */
export const isRecordName = (name: string): boolean => name.startsWith(recordNamePrefix)

/**
 * The id of the session `record` (a lock's, or a semaphore holder's) is held under, or `undefined` when it is free or
 * held on a lease of its own. A record with a session id but a lease end of its own is not under the session: a
 * process that knows nothing of sessions wrote its lease (a renew, a hand-off's resume) and left the id behind.
 *
 * @since 1.0.0
 * @category predicates
 */
export const sessionOf = (record: Pick<LockRecord, "owner" | "leaseUntil" | "session">): string | undefined =>
  record.owner !== undefined && record.leaseUntil === heldUntil ? record.session : undefined

/**
 * What is wrong with a lock name that a session's record would share, or `undefined`.
 *
 * @since 1.0.0
 * @category validation
 */
export const lockNameProblem = (name: string): string | undefined =>
  isRecordName(name)
    ? `lock name ${JSON.stringify(name)} begins with ${JSON.stringify(recordNamePrefix)}, which names the ` +
      `records of lease sessions: use another name`
    : undefined
