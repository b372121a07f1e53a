/**
 * Late delivery, for the fault wrapper: the network holds a request after its sender gave up on it and delivers it
 * later, out of order with the sender's later requests.
 *
 * A DynamoDB request carries every time it needs (`leaseUntil`, the `:now` of its conditions) as its sender's clock
 * read when it was built, so one that arrives late is applied as of then. The memory store reads `Clock` as a call
 * runs, so the held call runs under a clock that stands at the sender's reading at send time.
 *
 * @internal
 */
import * as Fault from "@leasehold/core/simulation/Fault"
import type { LockError } from "@leasehold/lock"
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as FaultyStore from "../../FaultyStore.js"
import * as EffectLine from "../effectLine.js"

/**
 * `base` with its wall clock standing at `wallMs`: what a request built at that reading sees, however late it runs.
 * Monotonic time and sleeps are `base`'s.
 *
 * @internal
 */
export const standingAt = (base: Clock.Clock, wallMs: number): Clock.Clock =>
  EffectLine.makeClock({
    wallMillis: () => wallMs,
    wallNanos: () => BigInt(wallMs) * 1_000_000n,
    monotonicNanos: () => EffectLine.monotonicTimeNanosUnsafe(base)
  }, (duration) => base.sleep(duration))

const sleepMs = (ms: number | undefined): Effect.Effect<void> =>
  ms === undefined || ms <= 0 ? Effect.void : Effect.sleep(Duration.millis(ms))

const monotonicMs = (clock: Clock.Clock): number => Number(EffectLine.monotonicTimeNanosUnsafe(clock) / 1_000_000n)

/** @internal */
export interface Held<A> {
  readonly call: FaultyStore.Call
  readonly fault: FaultyStore.Fault
  readonly request: FaultyStore.Request
  /** The store's call, as the wrapper received it: running it again sends the same request again. */
  readonly run: Effect.Effect<A, LockError.LockStoreError>
  /** The retryable error a sender that timed out gets. */
  readonly timedOut: Effect.Effect<never, LockError.LockStoreError>
  readonly onDelivery: ((delivery: FaultyStore.Delivery) => void) | undefined
}

/**
 * Sends `held.run` as of now, to be delivered `fault.ms` later by a fiber of its own that no caller can interrupt,
 * and answers the caller as `fault.kind` says: a timeout, the answer to the same request sent again, or never.
 *
 * @internal
 */
export const send = <A>(held: Held<A>): Effect.Effect<A, LockError.LockStoreError> =>
  Effect.clockWith((clock) => {
    const { fault } = held
    const builtAt = EffectLine.currentTimeMillisUnsafe(clock)
    const sentAt = monotonicMs(clock)
    const asBuilt = held.run.pipe(EffectLine.withClock(standingAt(clock, builtAt)))
    const delivered = Effect.andThen(
      sleepMs(fault.ms),
      Effect.flatMap(Effect.exit(asBuilt), (exit) =>
        Effect.sync(() =>
          held.onDelivery?.({
            call: held.call,
            fault,
            request: held.request,
            builtAt,
            heldMs: monotonicMs(clock) - sentAt,
            exit
          })
        ))
    )
    const answer = fault.kind === "lateHang"
      ? Effect.never
      : Effect.andThen(
        sleepMs(fault.giveUpMs),
        fault.kind === "lateRetry" && !Fault.isAcquire(held.call.operation) ? asBuilt : held.timedOut
      )
    return Effect.andThen(EffectLine.forkDetach(delivered), answer)
  })
