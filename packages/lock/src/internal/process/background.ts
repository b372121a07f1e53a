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
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as EffectLine from "../effectLine.js"

/** Node fires a longer `setTimeout` at once; Effect's own clock treats such a sleep as endless, and so does this one. */
const maxTimerMs = DurationOption.maxMs

/** Effect's live clock, which a program runs with by default and whose sleeps are plain timers: the one replaced. */
const liveClockPrototype: object | null = Object.getPrototypeOf(Effect.runSync(Effect.clockWith(Effect.succeed)))

/** A sleep on a timer that does not keep the process alive. */
const sleep = (duration: Duration.Duration): Effect.Effect<void> => {
  const millis = Duration.toMillis(duration)
  return EffectLine.callback<void>((resume) => {
    if (millis > maxTimerMs) return
    const timer = setTimeout(() => resume(Effect.void), Math.max(0, millis))
    // Outside Node (a browser, a worker) a timer is a number and holds nothing open anyway.
    if (typeof timer === "object" && typeof timer.unref === "function") timer.unref()
    return Effect.sync(() => clearTimeout(timer))
  })
}

const backgroundClocks = new WeakSet<Clock.Clock>()

/**
 * The live clock's time, with sleeps on timers that do not keep the process alive: an object over the live clock that
 * has a `sleep` of its own and reads the time as the live clock does (whose other members each Effect line names its
 * own way).
 */
const backgroundClock = (live: Clock.Clock): Clock.Clock => {
  const clock: Clock.Clock = Object.create(live, { sleep: { value: sleep } })
  backgroundClocks.add(clock)
  return clock
}

/**
 * Whether `clock` is the clock of background work (see `LockStore.isBackgroundClock`).
 *
 * @internal
 */
export const isBackgroundClock = (clock: Clock.Clock): boolean => backgroundClocks.has(clock)

/**
 * Runs `self` as background work: on the live clock with background sleeps, or on the clock it has if that is not
 * the live clock.
 *
 * @internal
 */
export const run = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.clockWith((clock) =>
    Object.getPrototypeOf(clock) === liveClockPrototype ? EffectLine.withClock(self, backgroundClock(clock)) : self
  )

/**
 * How the lock forks its fibers on Effect 4: started at once, up to their first wait, as Effect 3 starts a forked
 * fiber. A give-back or a release then reaches a store that answers at once before the fiber that forked it goes on,
 * and a fiber's first sleep is on the clock before anything else happens.
 *
 * @internal
 */
export const startAtOnce: EffectLine.ForkOptions = { startImmediately: true }

/**
 * Forks `self` as background work, in a detached fiber: it outlives the fiber that started it, and nobody waits for it.
 *
 * @internal
 */
export const fork = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<EffectLine.Fiber<A, E>, never, R> =>
  EffectLine.forkDetach(run(self), startAtOnce)
