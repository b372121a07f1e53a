/**
 * `Lock.withLocks` with `transaction`: free locks taken in one atomic store call (`LockStore.tryAcquireAll`), then kept
 * each as `withLock` keeps one (`keepAcquired`). The take goes first only when it can not wait on anyone: every name
 * is free in this process (no fiber of it holds or queues for one, none is re-entered) and the store takes the set
 * only if every lock is free, so it takes nothing over and jumps no reservation. Whatever it can not do (a lock held
 * elsewhere, a store with no transactions, a failed or late call) leaves the set to be taken one at a time, as
 * without it: the two paths never hold a lock at once, since the first gives back what it may have taken before the
 * second begins.
 *
 * @internal
 */
import * as AcquireBoundCore from "@leasehold/core/acquire/AcquireBound"
import * as LeaseDeadline from "@leasehold/core/lease/LeaseDeadline"
import { random as randomOwner } from "@leasehold/core/record/Owner"
import * as LockProtocol from "@leasehold/core/store/LockProtocol"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { LockNotAcquired } from "../../LockError.js"
import type { LockStore } from "../../LockStore.js"
import * as EffectLine from "../effectLine.js"
import { giveBack } from "../lease/giveBack.js"
import * as LeaseStore from "../lease/leaseStore.js"
import type { Restore } from "../lease/section.js"
import type * as Options from "../options/options.js"
import { outcome } from "../outcome.js"
import { monotonicMillis } from "../process/clock.js"
import * as HeldLeases from "../process/heldLeases.js"
import * as LocalQueue from "../process/localQueue.js"
import { queuesOf } from "../process/processLocal.js"
import * as LeaseSession from "../session/leaseSession.js"
import * as MemoryStore from "../store/memoryStore.js"
import { type Acquisition, keepAcquired } from "./lock.js"

/** Gives back by owner what a take of the set may have left held: each lock's write, whatever became of it. */
const giveBackAll = (store: LockStore, owners: ReadonlyArray<{ readonly name: string; readonly owner: string }>) =>
  Effect.forEach(
    owners,
    ({ name, owner }) =>
      giveBack(
        LeaseStore.ofLock(store),
        { name, owner, fence: undefined },
        (reason) =>
          `could not clean up after an unfinished take of "${name}" with other locks (${reason}); if it was applied, ` +
          `its lease will expire`
      ),
    { concurrency: "unbounded", discard: true }
  )

/**
 * The locks of `names` (distinct, in the order every process takes them), taken in one store call and kept, or
 * `undefined` when they are to be taken one at a time. Must run uninterruptibly, with `restore` the caller's mask;
 * each answer's keeper must then be released exactly once.
 *
 * @internal
 */
export const attempt = (args: {
  readonly store: LockStore
  readonly names: ReadonlyArray<string>
  readonly options: Options.Resolved
  readonly restore: Restore
  /** Monotonic ms when the set's `wait` runs out: a call still in flight `waitSlackMs` later is abandoned. */
  readonly waitUntil: number
}): Effect.Effect<ReadonlyArray<Acquisition> | undefined, LockNotAcquired> =>
  Effect.gen(function*() {
    const { names, options, store } = args
    const tryAcquireAll = store.tryAcquireAll
    if (tryAcquireAll === undefined || names.length < 2 || names.length > LockProtocol.maxTakenTogether) {
      return undefined
    }
    for (const name of names) {
      if ((yield* HeldLeases.live(store, name)) !== undefined) return undefined
    }
    const session = LeaseSession.inStore(yield* LeaseSession.CurrentLeaseSession, store)
    if (session !== undefined && LeaseSession.stateOf(session).finished) return undefined
    // The head of each name's queue in this process at once, or not at all: a fiber of this process is ahead.
    const queues = queuesOf(store)
    const entered: Array<string> = []
    for (const name of names) {
      if (!LocalQueue.tryEnter(queues, name)) break
      entered.push(name)
    }
    const leaveAll = Effect.forEach(entered, (name) => LocalQueue.leave(queues, name), { discard: true })
    if (entered.length < names.length) {
      yield* leaveAll
      return undefined
    }

    const owners = names.map((name) => ({ name, owner: randomOwner() }))
    const requests = owners.map(({ name, owner }) => ({
      name,
      owner,
      holder: options.holder,
      leaseMs: options.leaseMs,
      data: options.data,
      takeover: { _tag: "Observed", stale: undefined } as const,
      ...(session === undefined ? {} : { session: session.id })
    }))
    const startedAt = yield* monotonicMillis
    // As a single acquire's call, one that hangs is abandoned once the wait is over, and a store that answers at
    // once is never timed.
    const call = outcome(tryAcquireAll({ requests }))
    const bounded = args.waitUntil === Infinity || MemoryStore.answersAtOnce(store)
      ? Effect.map(call, Option.some)
      : Effect.timeoutOption(call, Duration.millis(AcquireBoundCore.timeLeftMs(args.waitUntil, startedAt)))
    // Interrupted in flight, the write may still land: it is given back before the interruption goes on.
    const answered = yield* EffectLine.onInterruptMasked(
      args.restore(bounded),
      Effect.andThen(giveBackAll(store, owners), leaveAll)
    )
    const answeredAt = yield* monotonicMillis
    // Abandoned, or failed without saying that nothing was written: what the write may have taken is given back.
    if (answered._tag === "None" || answered.value._tag === "Failure") {
      const answer = Option.getOrUndefined(answered)
      if (answer?._tag !== "Failure" || answer.failure.mayHaveApplied !== false) yield* giveBackAll(store, owners)
      yield* leaveAll
      return undefined
    }
    const answer = answered.value
    const result = answer.success
    if (result._tag !== "Acquired") {
      yield* leaveAll
      return undefined
    }
    // An answer too late to rely on the leases it set: given back, and the set taken one at a time.
    if (!LeaseDeadline.isInTime(options, startedAt, answeredAt)) {
      yield* giveBackAll(store, owners)
      yield* leaveAll
      return undefined
    }
    const kept: Array<Acquisition> = []
    for (const record of result.records) {
      const keptOne = yield* outcome(keepAcquired({
        store,
        name: record.name,
        options,
        acquired: { record, sentAt: startedAt, answeredAt },
        holder: undefined,
        session,
        startedAt
      }))
      if (keptOne._tag === "Failure") {
        // The session was lost meanwhile: its keeper gave that lock back; the others go back too.
        yield* Effect.forEach(kept, (one) => one._tag === "Acquired" ? one.keeper.release : Effect.void, {
          discard: true
        })
        const rest = result.records.slice(kept.length + 1)
        yield* Effect.forEach(rest, (one) => LocalQueue.leave(queues, one.name), { discard: true })
        yield* giveBackAll(store, owners.filter(({ name }) => rest.some((one) => one.name === name)))
        return yield* Effect.fail(keptOne.failure)
      }
      kept.push(keptOne.success)
    }
    return kept
  })
