/**
 * A held lease's writes go one at a time, and each carries the next number of the lease's write sequence. The keeper's
 * renews and the holder's data updates (`dataUpdate.ts`) are all renews in the store, each setting `leaseUntil` from
 * its own start, and the local deadline counts from when the last successful one was sent. Applied in another order
 * than they were sent, the store would keep an earlier `leaseUntil` while the deadline counts from a later write, past
 * the point where another holder may take over.
 *
 * - One at a time: a write is sent only once the one before it has answered, or was given up on.
 * - Numbered: a write given up on (a timeout, an interruption, a retry) may still be delivered later, after the
 *   writes that followed it. The store applies a renew only above the sequence of the last one it applied, so such a
 *   write changes nothing, and the write applied last is always the one sent last of those applied.
 *
 * Nearly every lease only ever renews: the uncontended path is a flag on the lease's state, and a queue is made only
 * once a write has to wait.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as EffectLine from "../effectLine.js"
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
  EffectLine.deferredDoneUnsafe(next.ready, Exit.void)
}

const giveUp = (state: LeaseState.LeaseState, turn: Turn): void => {
  if (turn.granted) return handOver(state)
  const waiting = state.waitingWrites
  const index = waiting === undefined ? -1 : waiting.indexOf(turn)
  if (index >= 0) waiting!.splice(index, 1)
}

/**
 * Runs `write` with the lease's next write sequence once no other write of the lease is in flight, and lets the next
 * one go when it ends, however it ends. Waiting is interruptible, as `write` is if the caller is.
 *
 * @internal
 */
export const oneAtATime = <A, E, R>(
  state: LeaseState.LeaseState,
  numbered: (sequence: number) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.suspend(() => {
      const write = Effect.suspend(() => numbered(++state.sequence))
      const done = Effect.sync(() => handOver(state))
      if (!state.writing) {
        state.writing = true
        return Effect.ensuring(restore(write), done)
      }
      const turn: Turn = { granted: false, ready: EffectLine.deferredMakeUnsafe<void>() }
      ;(state.waitingWrites ??= []).push(turn)
      return Effect.andThen(
        Effect.onInterrupt(restore(Deferred.await(turn.ready)), () => Effect.sync(() => giveUp(state, turn))),
        Effect.ensuring(restore(write), done)
      )
    })
  )
