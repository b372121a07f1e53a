/**
 * The per-process FIFO queue of fibers that want the same lock name.
 *
 * Only the head of a name's queue talks to the store; the others wait here without polling. When the head leaves,
 * the next waiter becomes the head at once, so a local release hands over without waiting for a poll interval.
 *
 * All state changes happen inside `Effect.sync` blocks, which JavaScript runs without interleaving: no locks needed.
 *
 * @internal
 */
import type { LockRecord } from "@leasehold/core/record/LockRecord"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as EffectLine from "../effectLine.js"

interface Waiter {
  /** Set synchronously when the head hands the name to this waiter. */
  granted: boolean
  readonly wakeUp: Deferred.Deferred<void>
}

interface NameQueue {
  /** Whether a fiber is the head (acquiring or holding in the store). */
  busy: boolean
  /** What the head holds, for reporting to fibers that give up waiting. */
  holding: LockRecord | undefined
  readonly waiters: Array<Waiter>
}

/** @internal */
export interface LocalQueues {
  readonly byName: Map<string, NameQueue>
}

/** @internal */
export const make = (): LocalQueues => ({ byName: new Map() })

const queueFor = (queues: LocalQueues, name: string): NameQueue => {
  let queue = queues.byName.get(name)
  if (queue === undefined) {
    queue = { busy: false, holding: undefined, waiters: [] }
    queues.byName.set(name, queue)
  }
  return queue
}

/**
 * Makes the next waiter the head, or marks the name idle. Called exactly once by every fiber that became head.
 *
 * @internal
 */
export const leave = (queues: LocalQueues, name: string): Effect.Effect<void> =>
  Effect.sync(() => leaveUnsafe(queues, name))

/**
 * `leave`, as a function to call once the lease ends: what a held lease keeps, a closure over the queue and the name
 * alone.
 *
 * @internal
 */
export const leaving = (queues: LocalQueues, name: string): () => void => () => leaveUnsafe(queues, name)

const leaveUnsafe = (queues: LocalQueues, name: string): void => {
  const queue = queues.byName.get(name)
  if (queue === undefined) return
  queue.holding = undefined
  const next = queue.waiters.shift()
  if (next === undefined) {
    queues.byName.delete(name)
    return
  }
  next.granted = true
  EffectLine.deferredDoneUnsafe(next.wakeUp, Effect.void)
}

/**
 * Becomes the head of `name`'s queue if nobody is, without waiting: `true` means this fiber is the head (it must then
 * call `leave` exactly once). Synchronous, so that an uncontended acquire makes the fiber head inside its
 * uninterruptible region, with no interruptible step between the queue and the caller that must leave it.
 *
 * @internal
 */
export const tryEnter = (queues: LocalQueues, name: string): boolean => {
  const queue = queueFor(queues, name)
  if (queue.busy) return false
  queue.busy = true
  return true
}

/**
 * Waits to become the head of `name`'s queue, for at most `wait` (`undefined`: forever). Succeeds with `true` once
 * this fiber is the head (it must then call `leave` exactly once), or `false` if the wait ran out. Interruption while
 * waiting leaves the queue as if this fiber had never joined.
 *
 * @internal
 */
export const enter = (
  queues: LocalQueues,
  name: string,
  wait: Duration.Duration | undefined
): Effect.Effect<boolean> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.suspend(() => {
      const queue = queueFor(queues, name)
      if (!queue.busy) {
        queue.busy = true
        return Effect.succeed(true)
      }
      if (wait !== undefined && Duration.toMillis(wait) <= 0) return Effect.succeed(false)
      const waiter: Waiter = { granted: false, wakeUp: EffectLine.deferredMakeUnsafe<void>() }
      queue.waiters.push(waiter)
      const woken = wait === undefined
        ? Deferred.await(waiter.wakeUp)
        : Effect.timeoutOption(Deferred.await(waiter.wakeUp), wait)
      // Whatever ends the wait, `granted` is the truth: a hand-over may land between the timer and this check.
      const settle = Effect.suspend(() => {
        if (waiter.granted) return Effect.succeed(true)
        const index = queue.waiters.indexOf(waiter)
        if (index >= 0) queue.waiters.splice(index, 1)
        return Effect.succeed(false)
      })
      return restore(woken).pipe(
        Effect.onInterrupt(() => Effect.flatMap(settle, (isHead) => (isHead ? leave(queues, name) : Effect.void))),
        Effect.andThen(settle)
      )
    })
  )

/**
 * Records what the head holds, so a waiter that gives up can say who has the lock.
 *
 * @internal
 */
export const setHolding = (queues: LocalQueues, name: string, record: LockRecord | undefined): Effect.Effect<void> =>
  Effect.sync(() => {
    const queue = queues.byName.get(name)
    if (queue !== undefined) queue.holding = record
  })

/**
 * What the head of `name`'s queue holds, if anything.
 *
 * @internal
 */
export const holding = (queues: LocalQueues, name: string): Effect.Effect<Option.Option<LockRecord>> =>
  Effect.sync(() => Option.liftPredicate(queues.byName.get(name)?.holding, Predicate.isNotUndefined))
