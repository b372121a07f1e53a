/**
 * A lease's status: read often, changed rarely, subscribed to almost never.
 *
 * A plain variable holds the current value; the `SubscriptionRef` (a PubSub and a semaphore) that `changes` needs is
 * only made when someone subscribes. Most leases live a few milliseconds and are never watched, and making that
 * machinery for each one cost more than the rest of an acquisition. A class, so that a held lease carries two fields
 * here and no closures.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import * as EffectLine from "../effectLine.js"

/**
 * A cell starting at `initial`. Once `isFinal` holds for a value, no later value is published: the stream of changes
 * ends there.
 *
 * @internal
 */
export class StatusCell<A> {
  private current: A
  private published: SubscriptionRef.SubscriptionRef<A> | undefined = undefined
  private readonly isFinal: (value: A) => boolean

  constructor(initial: A, isFinal: (value: A) => boolean) {
    this.current = initial
    this.isFinal = isFinal
  }

  getUnsafe(): A {
    return this.current
  }

  get get(): Effect.Effect<A> {
    return Effect.sync(() => this.current)
  }

  set(value: A): Effect.Effect<void> {
    return Effect.suspend(() => {
      this.current = value
      return this.published === undefined ? Effect.void : SubscriptionRef.set(this.published, value)
    })
  }

  /** The current value, then every change, ending with the first final value. */
  changes(): Stream.Stream<A> {
    // Made synchronously from the current value, so no `set` can fall between reading it and publishing from it.
    return Stream.unwrap(Effect.sync(() => {
      if (this.published === undefined) this.published = Effect.runSync(SubscriptionRef.make(this.current))
      return Stream.takeUntil(EffectLine.changes(this.published), this.isFinal)
    }))
  }
}

/** @internal */
export const make = <A>(initial: A, isFinal: (value: A) => boolean): StatusCell<A> => new StatusCell(initial, isFinal)
