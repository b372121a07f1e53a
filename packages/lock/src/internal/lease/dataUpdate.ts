/**
 * `Lease.updateData`: one conditional write (a renew with `setData`) that replaces the lock's data and extends the
 * lease, as a heartbeat renew does; under a lease session it extends nothing, the session's heartbeat keeping the lease.
 *
 * - It goes one at a time with the keeper's renews (`leaseWrites.ts`): an update waits for a renew in flight, and a
 *   renew that falls due waits for an update in flight. A write applied last is then always the one sent last, so the
 *   store's `leaseUntil` never goes back behind the local deadline.
 * - The deadline counts from just before the write was sent, and only moves forward, as after a renew; a lease at
 *   risk is held again. It does not move the heartbeat's schedule: the next renew goes when it was due.
 * - Before the write: the data is checked as an acquire's is (`LockConfigError`), and a lease that is lost, released
 *   or at its deadline fails with `LockLost` without a store call. During it: a loss ends the wait with `LockLost`.
 *   After it: an answer that comes once the lease has ended is a `LockLost` too (the write may have been applied while
 *   the lease was ours; the next holder's acquire replaces the data whatever it was).
 *
 * @internal
 */
import * as LeaseDeadline from "@leasehold/core/lease/LeaseDeadline"
import { dataProblem } from "@leasehold/core/record/LockRecord"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import { LockConfigError, LockLost, type LockStoreError } from "../../LockError.js"
import type * as LockStore from "../../LockStore.js"
import * as EffectLine from "../effectLine.js"
import type * as Options from "../options/options.js"
import { monotonicMillisOf } from "../process/clock.js"
import * as MemoryStore from "../store/memoryStore.js"
import * as LeaseState from "./leaseState.js"
import * as LeaseWrites from "./leaseWrites.js"

/** The `LockLost` of a lease that can not be written to any more: why it was lost, or that it was released. */
const ended = (state: LeaseState.LeaseState): LockLost => {
  const status = state.status.getUnsafe()
  if (status._tag === "Lost") return status.error
  return new LockLost({ name: state.name, owner: state.owner, fence: state.fence, reason: "released", by: undefined })
}

/** Fails with the lease's `LockLost` once it has ended; at its deadline, ends it first, as the keeper would. */
const failEnded = (state: LeaseState.LeaseState, now: number): Effect.Effect<void, LockLost> | undefined => {
  if (state.finished || state.releasing) return Effect.fail(ended(state))
  if (!LeaseDeadline.isPast(state.deadline, now)) return undefined
  return Effect.andThen(
    LeaseState.declareLost(state, "expired", undefined),
    Effect.suspend(() => Effect.fail(ended(state)))
  )
}

/** What the write sent at `sentAt` answered. */
const answered = (
  state: LeaseState.LeaseState,
  options: Options.Resolved,
  data: string | undefined,
  sentAt: number
) =>
(result: LockStore.RenewResult): Effect.Effect<void, LockLost> =>
  Effect.clockWith((clock) => {
    if (result._tag === "Lost") {
      return Effect.andThen(
        LeaseState.declareGone(state, result.current),
        Effect.suspend(() => Effect.fail(ended(state)))
      )
    }
    const now = monotonicMillisOf(clock)
    // Under a session the write extends nothing: the session's heartbeat keeps the deadline and the status.
    const underSession = state.session !== undefined
    const renewed = LeaseDeadline.renewed({ options, deadline: state.deadline, finished: state.finished, sentAt, now })
    // An answer that came after its own deadline proves nothing about now, as for a renew.
    if (renewed._tag === "Extended" && !underSession) state.deadline = renewed.deadline
    const failure = failEnded(state, now)
    if (failure !== undefined) return failure
    state.data = data
    return state.status.getUnsafe()._tag === "AtRisk" && !underSession
      ? state.status.set({ _tag: "Held" })
      : Effect.void
  })

/** The write, sent once it is this lease's turn and the lease is still live. */
const write = (
  state: LeaseState.LeaseState,
  store: LockStore.LockStore,
  options: Options.Resolved,
  data: string | undefined,
  sequence: number
): Effect.Effect<void, LockLost | LockStoreError> =>
  Effect.clockWith((clock) => {
    const sentAt = monotonicMillisOf(clock)
    const failure = failEnded(state, sentAt)
    if (failure !== undefined) return failure
    const { fence, name, owner } = state
    const call = store.renew({
      name,
      owner,
      fence,
      leaseMs: options.leaseMs,
      sequence,
      setData: { data },
      // A lock under a session stays under it: its lease fields are the session's to keep.
      session: state.session?.owner
    })
    // A store that answers at once can not be outlived by the lease; any other is abandoned when the lease is lost.
    const bounded = MemoryStore.answersAtOnce(store)
      ? call
      : Effect.raceFirst(call, Deferred.await(LeaseState.lostSignal(state)))
    return Effect.flatMap(bounded, answered(state, options, data, sentAt))
  })

/**
 * Replaces the data of the lease kept in `state` and extends it, in one conditional write.
 *
 * @internal
 */
export const update = (
  state: LeaseState.LeaseState,
  store: LockStore.LockStore,
  options: Options.Resolved,
  data: string | undefined
): Effect.Effect<void, LockLost | LockStoreError | LockConfigError> =>
  Effect.suspend((): Effect.Effect<void, LockLost | LockStoreError | LockConfigError> => {
    const problem = dataProblem(data)
    if (problem !== undefined) return Effect.fail(new LockConfigError({ option: "data", message: problem }))
    return LeaseWrites.oneAtATime(state, (sequence) => write(state, store, options, data, sequence))
  }).pipe(
    EffectLine.withSpan("Lock.updateData", {
      attributes: { "lock.name": state.name, "lock.owner": state.owner, "lock.fence": state.fence }
    })
  )
