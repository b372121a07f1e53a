/**
 * Tidying up that nobody waits for: the release retries after the caller has its answer, the release of a lease that
 * was already lost, the give-back of a write that may have applied. It runs in a detached fiber on a clock whose timers
 * do not keep a Node process alive (`unref`): a script, a cron job or a Lambda handler ends when its program does, and
 * whatever tidying up is left either finishes while the process lives on for other reasons, or is dropped with it (a
 * lease left behind expires on its own). A store's own timers follow the clock (`LockStore.isBackgroundClock`).
 *
 * Only Effect's live clock is replaced. Under a `TestClock` (or any clock of a user's) background work keeps that
 * clock, so that tests drive it as before.
 *
 * @internal
 */
import * as DurationOption from "@leasehold/core/options/DurationOption"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"

/** Node fires a longer `setTimeout` at once; Effect's own clock treats such a sleep as endless, and so does this one. */
const maxTimerMs = DurationOption.maxMs

/** Effect's live clock, whose sleeps are plain timers: the one background work replaces. */
const liveClockPrototype: object | null = Object.getPrototypeOf(Clock.Clock.defaultValue())

/**
 * The live clock's time, with sleeps on timers that do not keep the process alive.
 *
 * @internal
 */
export class BackgroundClock implements Clock.Clock {
  readonly currentTimeMillis: Effect.Effect<number>
  readonly currentTimeNanos: Effect.Effect<bigint>
  readonly monotonicTimeNanos: Effect.Effect<bigint>

  constructor(readonly base: Clock.Clock) {
    this.currentTimeMillis = base.currentTimeMillis
    this.currentTimeNanos = base.currentTimeNanos
    this.monotonicTimeNanos = base.monotonicTimeNanos
  }

  currentTimeMillisUnsafe(): number {
    return this.base.currentTimeMillisUnsafe()
  }

  currentTimeNanosUnsafe(): bigint {
    return this.base.currentTimeNanosUnsafe()
  }

  monotonicTimeNanosUnsafe(): bigint {
    return this.base.monotonicTimeNanosUnsafe()
  }

  sleep(duration: Duration.Duration): Effect.Effect<void> {
    const millis = Duration.toMillis(duration)
    return Effect.callback<void>((resume) => {
      if (millis > maxTimerMs) return
      const timer = setTimeout(() => resume(Effect.void), Math.max(0, millis))
      // Outside Node (a browser, a worker) a timer is a number and holds nothing open anyway.
      if (typeof timer === "object" && typeof timer.unref === "function") timer.unref()
      return Effect.sync(() => clearTimeout(timer))
    })
  }
}

/**
 * Whether `clock` is the clock of background work (see `LockStore.isBackgroundClock`).
 *
 * @internal
 */
export const isBackgroundClock = (clock: Clock.Clock): boolean => clock instanceof BackgroundClock

/**
 * Runs `self` as background work: on the live clock's background twin, or on the clock it has if that is not the live
 * clock.
 *
 * @internal
 */
export const run = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.clockWith((clock) =>
    Object.getPrototypeOf(clock) === liveClockPrototype
      ? Effect.provideService(self, Clock.Clock, new BackgroundClock(clock))
      : self
  )

/**
 * How the lock forks its fibers: started at once, up to their first wait, as Effect 3 starts a forked fiber. A give-back
 * or a release then reaches a store that answers at once before the fiber that forked it goes on, and a fiber's first
 * sleep is on the clock before anything else happens.
 *
 * @internal
 */
export const startAtOnce = { startImmediately: true } as const

/**
 * Forks `self` as background work, in a detached fiber: it outlives the fiber that started it, and nobody waits for it.
 *
 * @internal
 */
export const fork = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<Fiber.Fiber<A, E>, never, R> =>
  Effect.forkDetach(run(self), startAtOnce)
