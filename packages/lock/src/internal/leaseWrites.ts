/**
 * A held lease's writes go one at a time: the keeper's renews and the holder's data updates (`dataUpdate.ts`) are all
 * renews in the store, each setting `leaseUntil` from its own start, and the local deadline counts from when the last
 * successful one was sent. Two in flight at once could be applied in the other order than they were sent: the store
 * would keep the earlier `leaseUntil` while the deadline counts from the later write, past the point where another
 * holder may take over. One at a time, the write applied last is the one sent last, and the deadline stays behind the
 * store's lease.
 *
 * Nearly every lease only ever renews: the uncontended path is a flag on the lease's state, and a queue is made only
 * once a write has to wait.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import type * as LeaseState from "./leaseState.js"

/**
 * A write waiting for its turn: `granted` once the write before it handed over, so that a waiter interrupted just
 * then passes the turn on instead of dropping it.
 *
 * @internal
 */
export interface Turn {
  granted: boolean
  readonly ready: Deferred.Deferred<void>
}

/** The write in flight is done: the next waiter goes, or nobody writes. */
const handOver = (state: LeaseState.LeaseState): void => {
  const next = state.waitingWrites?.shift()
  if (next === undefined) {
    state.writing = false
    return
  }
  next.granted = true
  Deferred.unsafeDone(next.ready, Exit.void)
}

const giveUp = (state: LeaseState.LeaseState, turn: Turn): void => {
  if (turn.granted) return handOver(state)
  const waiting = state.waitingWrites
  const index = waiting === undefined ? -1 : waiting.indexOf(turn)
  if (index >= 0) waiting!.splice(index, 1)
}

/**
 * Runs `write` once no other write of the lease is in flight, and lets the next one go when it ends, however it
 * ends. Waiting is interruptible, as `write` is if the caller is.
 *
 * @internal
 */
export const oneAtATime = <A, E, R>(
  state: LeaseState.LeaseState,
  write: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.suspend(() => {
      const done = Effect.sync(() => handOver(state))
      if (!state.writing) {
        state.writing = true
        return Effect.ensuring(restore(write), done)
      }
      const turn: Turn = { granted: false, ready: Deferred.unsafeMake<void>(FiberId.none) }
      ;(state.waitingWrites ??= []).push(turn)
      return Effect.zipRight(
        Effect.onInterrupt(restore(Deferred.await(turn.ready)), () => Effect.sync(() => giveUp(state, turn))),
        Effect.ensuring(restore(write), done)
      )
    })
  )
