/**
 * What several classes draw for a planned section: longer steps, and a hand-off midway.
 *
 * @since 1.0.0
 */
import * as Draws from "./Draws.js"
import type * as Schedule from "./Schedule.js"

/**
 * `s` with at least a few steps of a few hundred ms: long enough to renew, and to have steps left when a lease runs
 * out.
 *
 * @since 1.0.0
 * @category generators
 */
export const lengthen = (s: Schedule.SectionSpec, next: () => number): Schedule.SectionSpec => {
  const { int } = Draws.make(next)
  return { ...s, steps: Math.max(s.steps, int(3, 6)), stepMs: Math.max(s.stepMs, int(300, 700)) }
}

/**
 * `s`, lengthened, handing its lease off midway to another process of `schedule` (or a later "invocation" of its
 * own).
 *
 * @since 1.0.0
 * @category generators
 */
export const handedOff = (
  schedule: Schedule.Schedule,
  s: Schedule.SectionSpec,
  next: () => number
): Schedule.SectionSpec => {
  const { int, pick } = Draws.make(next)
  const long = lengthen(s, next)
  const others = schedule.processes.map((p) => p.id).filter((id) => id !== s.process)
  return {
    ...long,
    handOff: {
      afterSteps: int(0, long.steps),
      // Mostly another process; sometimes a later "invocation" of the same one.
      to: next() < 0.8 && others.length > 0 ? pick(others) : s.process,
      // Mostly within what is left of the lease; sometimes past it.
      delayMs: next() < 0.8 ? int(0, 1_500) : int(1_500, 3 * schedule.timings.leaseMs)
    }
  }
}
