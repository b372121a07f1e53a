/**
 * What every handle of a held lease shows of it (a lock's `Lease`, a semaphore's `Permits`): its data and where it
 * stands, read from the lease's state when asked for.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import type { LeaseStatus } from "../../Lease.js"
import type { LockLost } from "../../LockError.js"
import * as LeaseState from "./leaseState.js"

/**
 * The state is private, so that a handle shows (and serialises) as its own fields alone.
 *
 * @internal
 */
export class LeaseView {
  readonly #state: LeaseState.LeaseState

  constructor(state: LeaseState.LeaseState) {
    this.#state = state
  }

  /** For the subclasses' own operations. */
  static stateOf(view: LeaseView): LeaseState.LeaseState {
    return view.#state
  }

  get data(): string | undefined {
    return this.#state.data
  }

  get status(): Effect.Effect<LeaseStatus> {
    return this.#state.status.get
  }

  get changes(): Stream.Stream<LeaseStatus> {
    return this.#state.status.changes()
  }

  get isHeld(): Effect.Effect<boolean> {
    const state = this.#state
    return Effect.sync(() => LeaseState.isLive(state))
  }

  get lost(): Effect.Effect<never, LockLost> {
    const state = this.#state
    return Effect.suspend(() => Deferred.await(LeaseState.lostSignal(state)))
  }
}
