/**
 * A simulated process's wall clock against true time: its constant offset plus the steps (jumps and freezes) its
 * clock has taken so far.
 *
 * @since 1.0.0
 */
import type * as Schedule from "./Schedule.js"

/**
 * The wall clock offset of a process at a true time: a constant when its clock never steps, else a function of the
 * true time.
 *
 * @since 1.0.0
 * @category clocks
 */
export const offsetOf = (spec: Schedule.ProcessSpec): number | ((now: number) => number) => {
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
