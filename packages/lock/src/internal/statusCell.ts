/**
 * A lease's status: read often, changed rarely, subscribed to almost never.
 *
 * A plain variable holds the current value; the `SubscriptionRef` (a PubSub and a semaphore) that `changes` needs is
 * only made when someone subscribes. Most leases live a few milliseconds and are never watched, and making that
 * machinery for each one cost more than the rest of an acquisition.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"

/** @internal */
export interface StatusCell<A> {
  readonly unsafeGet: () => A
  readonly get: Effect.Effect<A>
  readonly set: (value: A) => Effect.Effect<void>
  /** The current value, then every change, ending with the first final value. */
  readonly changes: () => Stream.Stream<A>
}

/**
 * A cell starting at `initial`. Once `isFinal` holds for a value, no later value is published: the stream of changes
 * ends there.
 *
 * @internal
 */
export const make = <A>(initial: A, isFinal: (value: A) => boolean): StatusCell<A> => {
  let current = initial
  let published: SubscriptionRef.SubscriptionRef<A> | undefined

  // Made synchronously from the current value, so no `set` can fall between reading it and publishing from it.
  const subscribed = Effect.sync(() => {
    if (published === undefined) published = Effect.runSync(SubscriptionRef.make(current))
    return Stream.takeUntil(published.changes, isFinal)
  })

  return {
    unsafeGet: () => current,
    get: Effect.sync(() => current),
    set: (value) =>
      Effect.suspend(() => {
        current = value
        return published === undefined ? Effect.void : SubscriptionRef.set(published, value)
      }),
    changes: () => Stream.unwrap(subscribed)
  }
}
