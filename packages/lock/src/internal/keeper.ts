/**
 * Keeping a held lock: its state, one daemon fiber that runs the heartbeat, and the `Lease` handed to the caller. The
 * release stops the fiber when the lock's scope closes; nothing else does.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type { Lease } from "../Lease.js"
import type { LockRecord } from "../LockRecord.js"
import type * as LockStore from "../LockStore.js"
import { monotonicMillis } from "./clock.js"
import * as Heartbeat from "./heartbeat.js"
import * as LeaseState from "./leaseState.js"
import type * as LeaseUsers from "./leaseUsers.js"
import type * as Options from "./options.js"
import * as Release from "./release.js"

/** @internal */
export interface Keeper {
  readonly lease: Lease
  /** Whether the lease is held (possibly at risk), read synchronously. */
  readonly isLive: () => boolean
  /** Stops the heartbeat, abandons a renew in flight, releases. Never fails. */
  readonly release: Effect.Effect<void>
}

/**
 * Starts keeping `record` alive. `sentAt` is the monotonic time just before the acquiring write was sent. When the
 * lock is lost, `users` are interrupted; when it is released, its borrowers are, and `onEnd` runs. The caller must run
 * `release` exactly once.
 *
 * @internal
 */
export const start = (args: {
  readonly store: LockStore.LockStore
  readonly record: LockRecord
  readonly options: Options.Resolved
  readonly sentAt: number
  readonly users: LeaseUsers.LeaseUsers
  readonly onEnd: Effect.Effect<void>
}): Effect.Effect<Keeper> =>
  Effect.gen(function*() {
    const { options, record, store } = args
    const state = LeaseState.make({
      record,
      users: args.users,
      deadline: args.sentAt + options.leaseMs - options.safetyMarginMs,
      keptSince: yield* monotonicMillis
    })
    // Started from the uninterruptible end of an acquire: make the loop interruptible again explicitly.
    const fiber = yield* Effect.forkDaemon(Effect.interruptible(Heartbeat.keep(state, store, options, args.sentAt)))
    const lease: Lease = {
      name: state.name,
      owner: state.owner,
      holder: record.holder ?? options.holder,
      fence: state.fence,
      data: record.data,
      record,
      status: state.status.get,
      get changes() {
        return state.status.changes()
      },
      lost: Effect.suspend(() => Deferred.await(LeaseState.lostSignal(state))),
      isHeld: Effect.sync(() => LeaseState.isLive(state))
    }
    return {
      lease,
      release: Release.release(state, store, fiber, options.safetyMarginMs, args.onEnd),
      isLive: () => LeaseState.isLive(state)
    }
  })
