/**
 * The lock options a planned section passes: the schedule's timings and takeover mode, its own wait, and a holder
 * name of its own, so that a history can name each use. A bad option goes on top (see `BadOption`).
 *
 * @since 1.0.0
 */
import type * as Schedule from "./Schedule.js"

/**
 * A section's options, in milliseconds.
 *
 * @since 1.0.0
 * @category models
 */
export interface SectionOptions {
  readonly lease: number
  readonly heartbeat: number
  readonly safetyMargin: number
  readonly maxClockSkew: number
  readonly pollInterval: number
  readonly takeover: Schedule.Schedule["takeover"]
  readonly wait: number | "forever"
  readonly holder: string
}

/**
 * The holder name of use `index` of `process`: a child's index follows the planned sections'.
 *
 * @since 1.0.0
 * @category constructors
 */
export const holderOf = (process: string, index: number): string => `${process}#${index}`

/**
 * The options of planned section `index` of `schedule`, without its bad option.
 *
 * @since 1.0.0
 * @category constructors
 */
export const of = (schedule: Schedule.Schedule, spec: Schedule.SectionSpec, index: number): SectionOptions => {
  const t = schedule.timings
  return {
    lease: t.leaseMs,
    heartbeat: t.heartbeatMs,
    safetyMargin: t.safetyMarginMs,
    maxClockSkew: t.maxClockSkewMs,
    pollInterval: t.pollIntervalMs,
    takeover: schedule.takeover,
    wait: spec.wait,
    holder: holderOf(spec.process, index)
  }
}
