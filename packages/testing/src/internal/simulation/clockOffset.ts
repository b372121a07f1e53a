/**
 * Skewed wall clocks: a constant offset on top of the clock in context (for tests on `TestClock`), and a process's
 * offset at a true time once its clock steps are applied (for simulations).
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type * as Simulation from "../../Simulation.js"

/** @internal */
export const withClockOffset = (offsetMs: number) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.clockWith((base) => {
    const wall = () => base.unsafeCurrentTimeMillis() + offsetMs
    const skewed: Clock.Clock = {
      [Clock.ClockTypeId]: Clock.ClockTypeId,
      unsafeCurrentTimeMillis: wall,
      currentTimeMillis: Effect.sync(wall),
      unsafeCurrentTimeNanos: () => base.unsafeCurrentTimeNanos(),
      currentTimeNanos: base.currentTimeNanos,
      sleep: (duration) => base.sleep(duration)
    }
    return Effect.withClock(self, skewed)
  })

/**
 * The wall clock offset of a process at a true time: its constant offset plus its clock's steps so far.
 *
 * @internal
 */
export const wallOffset = (spec: Simulation.ProcessSpec): number | ((now: number) => number) => {
  const steps = [...(spec.clockSteps ?? [])].sort((x, y) => x.at - y.at)
  if (steps.length === 0) return spec.offsetMs
  return (now) => {
    let offset = spec.offsetMs
    for (const step of steps) {
      if (step.at > now) break
      offset += step.kind === "jump" ? step.ms : -Math.min(now - step.at, step.ms)
    }
    return offset
  }
}
