/**
 * A lock's holder as error messages describe it: who, under which owner and fence, until when.
 *
 * @since 1.0.0
 */
import type { LockRecord } from "../record/LockRecord.js"
import * as LeaseSession from "../session/LeaseSession.js"

/**
 * `record`'s holder in one phrase, or "an unknown holder" when the store did not say (or the lock is free). A lock
 * under a lease session is held for as long as the session lives, which its record does not say.
 *
 * @since 1.0.0
 * @category messages
 */
export const describe = (record: LockRecord | undefined): string => {
  if (record === undefined || record.owner === undefined) return "an unknown holder"
  const session = LeaseSession.sessionOf(record)
  if (session !== undefined) {
    return `${record.holder ?? "?"} (owner ${record.owner}, fence ${record.fence}, under lease session ${session})`
  }
  const until = Number.isFinite(record.leaseUntil) ? new Date(record.leaseUntil).toISOString() : "?"
  return `${record.holder ?? "?"} (owner ${record.owner}, fence ${record.fence}, lease until ${until})`
}
