/**
 * The state of one held lease, shared by its heartbeat, its watchdog and its release: where it stands, its local
 * deadline, and whether it has ended. A plain mutable record: every change happens in one synchronous step of a fiber,
 * which JavaScript runs without interleaving.
 *
 * The local deadline is the monotonic time just BEFORE the last successful write that set the lease (the acquire, a
 * heartbeat's renew, a data update) was sent, plus lease - safetyMargin. Any other holder can take over no earlier
 * than leaseUntil + maxClockSkew (absolute) or a full unchanged lease after it first saw our last write (observed),
 * both of which lie after this deadline.
 *
 * @internal
 */
import * as LeaseLoss from "@leasehold/core/lease/LeaseLoss"
import type { LockRecord } from "@leasehold/core/record/LockRecord"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Metric from "effect/Metric"
import type { LeaseStatus } from "../../Lease.js"
import { LockLost } from "../../LockError.js"
import * as EffectLine from "../effectLine.js"
import { monotonicMillis } from "../process/clock.js"
import * as LeaseUsers from "../process/leaseUsers.js"
import * as Metrics from "../process/metrics.js"
import type * as LeaseWrites from "./leaseWrites.js"
import * as StatusCell from "./statusCell.js"

/** @internal */
export interface MakeArgs {
  readonly record: LockRecord
  readonly users: LeaseUsers.LeaseUsers
  readonly deadline: number
  readonly keptSince: number
  /** For a semaphore's permits: how many. */
  readonly permits: number | undefined
}

/**
 * A class, so that a held lease costs one object here and no closures: thousands may be held at once.
 *
 * @internal
 */
export class LeaseState {
  readonly name: string
  readonly owner: string
  readonly fence: number
  readonly status: StatusCell.StatusCell<LeaseStatus> = StatusCell.make<LeaseStatus>(held, isFinal)
  /** The fibers to interrupt when the lease ends. */
  readonly users: LeaseUsers.LeaseUsers
  /** Monotonic ms when keeping began, for the hold-time metric. */
  readonly keptSince: number
  /** Monotonic ms past which the lease may no longer be relied on; only a renew (or a data update) moves it, and only later. */
  deadline: number
  /** Set by a loss or by the release; from then on nothing renews and nothing changes the status but the release. */
  finished = false
  /** Set as the release begins: a lease being given back is no longer entered, though its status is still Held. */
  releasing = false
  /** Made on first use: few leases are ever awaited, and an Effect Deferred copies Effect's whole prototype. */
  lost: Deferred.Deferred<never, LockLost> | undefined = undefined
  /** Set while a renew is in flight: a hand-off waits for its answer rather than abandon it (see `handoff.ts`). */
  renewing = false
  /**
   * Set as a hand-off begins (see `handoff.ts`), done with whether it handed the lease off: from then on nothing
   * renews it and nothing enters it, and the release leaves a lease handed off to whoever resumes it.
   */
  handOff: Deferred.Deferred<boolean> | undefined = undefined
  /** How many permits of a semaphore the lease holds; `undefined` for a lock. */
  readonly permits: number | undefined
  /** What the record's `data` is: the acquire's, then each successful update's (`dataUpdate.ts`). */
  data: string | undefined
  /** Whether a write (a renew or a data update) is in flight: they go one at a time (`leaseWrites.ts`). */
  writing = false
  /** The writes waiting for their turn, first come first; made when one first has to wait. */
  waitingWrites: Array<LeaseWrites.Turn> | undefined = undefined
  /** The write sequence of the last write that took its turn (`leaseWrites.ts`); the record's as the lease began. */
  sequence: number
  /**
   * A lease session's own lease: the leases held under it, whose deadline and status are its own (`session.ts`).
   * Made when the first one is.
   */
  members: Set<LeaseState> | undefined = undefined
  /** A lease held under a lease session: the session's own lease, whose heartbeat keeps this one. */
  session: LeaseState | undefined = undefined

  constructor(args: MakeArgs) {
    this.name = args.record.name
    this.owner = args.record.owner!
    this.fence = args.record.fence
    this.users = args.users
    this.keptSince = args.keptSince
    this.deadline = args.deadline
    this.data = args.record.data
    this.permits = args.permits
    this.sequence = args.record.sequence
  }
}

/** One value for every lease that starts: statuses are never mutated. */
const held: LeaseStatus = { _tag: "Held" }

const isFinal = (status: LeaseStatus) =>
  status._tag === "Lost" || status._tag === "Released" || status._tag === "HandedOff"

/** @internal */
export const make = (args: MakeArgs): LeaseState => new LeaseState(args)

/**
 * Whether the lease is held (possibly at risk) and not being released.
 *
 * @internal
 */
export const isLive = (state: LeaseState): boolean => {
  if (state.releasing || state.handOff !== undefined) return false
  const tag = state.status.getUnsafe()._tag
  return tag === "Held" || tag === "AtRisk"
}

/**
 * The signal that fails once the lease is lost; made failed if it already is.
 *
 * @internal
 */
export const lostSignal = (state: LeaseState): Deferred.Deferred<never, LockLost> => {
  if (state.lost === undefined) {
    state.lost = EffectLine.deferredMakeUnsafe<never, LockLost>()
    const current = state.status.getUnsafe()
    if (current._tag === "Lost") EffectLine.deferredDoneUnsafe(state.lost, Exit.fail(current.error))
  }
  return state.lost
}

/**
 * The lock (or the semaphore, with the permits), owner and fence, as every log line about the lease is annotated.
 *
 * @internal
 */
export const annotations = (state: LeaseState): Record<string, unknown> =>
  state.permits === undefined
    ? { lock: state.name, owner: state.owner, fence: state.fence }
    : { semaphore: state.name, permits: state.permits, owner: state.owner, fence: state.fence }

/**
 * What is leased, for people: `lock "name"`, or `semaphore "name"` for permits.
 *
 * @internal
 */
export const describe = (state: LeaseState): string =>
  `${state.permits === undefined ? "lock" : "semaphore"} "${state.name}"`

/** @internal */
export const recordHoldTime = (state: LeaseState): Effect.Effect<void> =>
  Effect.flatMap(monotonicMillis, (now) => Metric.update(Metrics.holdTime, now - state.keptSince))

/**
 * The one way into the Lost state; later calls are ignored, so lost never turns back into held. Interrupts every
 * fiber that relies on the lease.
 *
 * @internal
 */
export const declareLost = (
  state: LeaseState,
  reason: "expired" | "stolen" | "freed",
  by: LockRecord | undefined
): Effect.Effect<void> =>
  Effect.suspend(() => {
    if (state.finished) return Effect.void
    state.finished = true
    const { fence, name, owner, permits } = state
    const error = new LockLost({
      name,
      owner,
      fence,
      reason,
      by,
      ...(permits === undefined ? {} : { permits }),
      ...(state.session === undefined ? {} : { session: state.session.owner })
    })
    // A session's leases are lost with it, each before anyone may take it over: the session's deadline is theirs.
    const members = state.members === undefined ? [] : [...state.members]
    return Effect.all([
      state.status.set({ _tag: "Lost", error }),
      // After the status: a signal made from here on is made already failed.
      Effect.suspend(() => state.lost === undefined ? Effect.void : Deferred.fail(state.lost, error)),
      Metrics.increment(EffectLine.withAttributes(Metrics.losses, { reason })),
      recordHoldTime(state),
      Effect.logWarning(error.message).pipe(Effect.annotateLogs(annotations(state))),
      LeaseUsers.interruptOnLoss(state.users, error),
      Effect.forEach(members, (member) => declareLost(member, reason, undefined), { discard: true })
    ], { discard: true })
  })

/**
 * Gives the leases held under a session's lease its deadline and status (held or at risk), after the session's
 * heartbeat changed them.
 *
 * @internal
 */
export const mirrorToMembers = (state: LeaseState): Effect.Effect<void> => {
  if (state.members === undefined || state.members.size === 0) return Effect.void
  const status = state.status.getUnsafe()
  const members = [...state.members]
  for (const member of members) member.deadline = state.deadline
  if (status._tag !== "Held" && status._tag !== "AtRisk") return Effect.void
  return Effect.forEach(
    members,
    (member) =>
      member.finished || member.status.getUnsafe()._tag === status._tag ? Effect.void : member.status.set(status),
    { discard: true }
  )
}

/**
 * Declares the loss a write found: the store no longer has this lease (see `LeaseLoss.goneReason`).
 *
 * @internal
 */
export const declareGone = (state: LeaseState, current: LockRecord | undefined): Effect.Effect<void> =>
  declareLost(state, LeaseLoss.goneReason(state.permits, current), current)
