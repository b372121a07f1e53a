/**
 * Whether a lease session is dead, judged from a read of its record: the one judgement a process makes before it
 * takes over a lock held under another process's session (`LeaseSession`).
 *
 * The session's process relies on its locks until its own deadline: the monotonic time just before its last renew
 * that it saw succeed was sent, plus the lease, less the safety margin. It never relies on them again once that
 * deadline has passed, even if a renew it gave up on is applied later. A judgement is sound when the deadline has
 * passed by the time the judging read is sent:
 *
 * - Absolute takeover: the record's `leaseUntil` plus the skew bound is before the wall clock at which the read was
 *   sent. The session's clock was then past `leaseUntil`, so past the deadline of the renew that wrote it; any later
 *   renew that it counts was applied before that deadline, so before the read, and the read would show it.
 * - Observed takeover: the read shows the version a read answered at least the session's lease earlier showed (on
 *   the judge's monotonic clock, from that answer to this read's sending). Every renew the session counts was applied
 *   before its deadline, which lies within a lease of the send of the renew that the earlier read showed.
 *
 * A record that is gone, or held by someone else, is a session that ended: its process released it after its locks,
 * or never made it, and no renew of the session can apply to it again. A dead session stays dead: the judge may keep
 * the verdict.
 *
 * @since 1.0.0
 */
import type { Observation } from "../acquire/LockAttempt.js"
import type { LockRecord } from "../record/LockRecord.js"

/**
 * @since 1.0.0
 * @category models
 */
export type Verdict =
  | { readonly _tag: "Dead" }
  | {
    readonly _tag: "Alive"
    /** Ms from the read's answer until a read sent then could find the session dead, if nobody renews it. */
    readonly untilJudgedMs: number
    /** Observed takeover: the record as first seen in its state, for the next judgement. */
    readonly observation: Observation | undefined
  }

const dead: Verdict = { _tag: "Dead" }

const sameState = (observation: Observation | undefined, record: LockRecord) =>
  observation !== undefined && observation.owner === record.owner && observation.fence === record.fence &&
  observation.version === record.version

/**
 * Judges the session `id` from its record as a read answered it (`undefined`: there is none). `sentAt` and
 * `answeredAt` are the read's send and answer on the monotonic clock, `wallSentAt` its send on the wall clock;
 * `observation` is what an earlier judgement of the same session left (observed takeover).
 *
 * @since 1.0.0
 * @category judgements
 */
export const judge = (args: {
  readonly takeover: "absolute" | "observed"
  readonly maxClockSkewMs: number
  readonly id: string
  readonly record: LockRecord | undefined
  readonly sentAt: number
  readonly answeredAt: number
  readonly wallSentAt: number
  readonly observation: Observation | undefined
}): Verdict => {
  const { record } = args
  if (record === undefined || record.owner !== args.id) return dead
  if (args.takeover === "absolute") {
    const deadAfter = record.leaseUntil + args.maxClockSkewMs
    return deadAfter < args.wallSentAt
      ? dead
      : { _tag: "Alive", untilJudgedMs: deadAfter + 1 - args.wallSentAt, observation: undefined }
  }
  const seen = sameState(args.observation, record) ? args.observation! : undefined
  if (seen !== undefined && args.sentAt - seen.seenAt >= record.leaseMs) return dead
  const observation: Observation = seen ?? {
    owner: record.owner,
    fence: record.fence,
    version: record.version,
    leaseMs: record.leaseMs,
    seenAt: args.answeredAt
  }
  return {
    _tag: "Alive",
    untilJudgedMs: Math.max(0, observation.seenAt + record.leaseMs - args.answeredAt),
    observation
  }
}
