import { describe, expect, it } from "@effect/vitest"
import { LockStore } from "@leasehold/lock"
import { Duration, Effect, Fiber, Option } from "effect"
import * as Background from "../src/internal/process/background.js"
import { forkChild, poll, withClock, yieldNow } from "./effectLine.js"
import { currentClock } from "./support.js"

/** The clock a program outside any test runs on. */
const liveClock = () => Effect.runSync(currentClock)

/** The timers that keep this process alive right now (an unreferenced timer is not one of them). */
const liveTimers = () => process.getActiveResourcesInfo().filter((resource) => resource === "Timeout").length

describe("background work", () => {
  it.effect("runs on a background clock that reads the live time, whose sleeps keep no timer that holds the process alive", () =>
    Effect.gen(function*() {
      const live = liveClock()
      const clock = yield* Background.run(currentClock).pipe(withClock(live))
      expect(LockStore.isBackgroundClock(clock)).toBe(true)
      expect(LockStore.isBackgroundClock(live)).toBe(false)
      // The same time as the live clock.
      const before = Date.now()
      const now = yield* clock.currentTimeMillis
      expect(now).toBeGreaterThanOrEqual(before)
      expect(now).toBeLessThanOrEqual(Date.now())
      // A sleep arms a timer, unreferenced: the live clock's own would count here.
      const timers = liveTimers()
      const sleeping = yield* forkChild(clock.sleep(Duration.minutes(10)))
      const referenced = yield* forkChild(live.sleep(Duration.minutes(10)))
      yield* yieldNow
      expect(liveTimers()).toBe(timers + 1)
      yield* Fiber.interrupt(referenced)
      expect(liveTimers()).toBe(timers)
      yield* Fiber.interrupt(sleeping)
      // Background work inside background work stays on the same clock.
      expect(yield* Background.run(currentClock).pipe(withClock(clock))).toBe(clock)
    }))

  it.effect("keeps a TestClock, so that tests drive background work as before", () =>
    Effect.gen(function*() {
      const testClock = yield* currentClock
      const clock = yield* Background.run(currentClock)
      expect(clock).toBe(testClock)
      expect(LockStore.isBackgroundClock(clock)).toBe(false)
    }))

  it.effect("a sleep past Node's timer limit never ends, as on Effect's own clock", () =>
    Effect.gen(function*() {
      const clock = yield* Background.run(currentClock).pipe(withClock(liveClock()))
      const timers = liveTimers()
      const forever = yield* forkChild(clock.sleep(Duration.days(30)))
      yield* yieldNow
      expect(Option.isNone(yield* poll(forever))).toBe(true)
      expect(liveTimers()).toBe(timers)
      yield* Fiber.interrupt(forever)
    }))
})
