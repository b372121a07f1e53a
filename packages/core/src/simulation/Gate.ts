/**
 * A simulated process's pause gate, without a runtime: while the process is paused, whatever waits at its gate stays
 * there; resuming it lets every waiter through, in the order they came.
 *
 * @since 1.0.0
 */
import type * as Schedule from "./Schedule.js"
import type * as Timeline from "./Timeline.js"

/**
 * Whether a process runs, and who waits for it to run again. Each Effect line passes the gate its own way: at once
 * when it is open, else by waiting until `resume`.
 *
 * @since 1.0.0
 * @category models
 */
export class Gate {
  private closed = false
  private waiters: Array<() => void> = []

  /** Whether the process is paused now. */
  get paused(): boolean {
    return this.closed
  }

  /**
   * Calls `waiter` when the process resumes; the result withdraws it, for a waiter that gives up.
   *
   * @since 1.0.0
   */
  wait(waiter: () => void): () => void {
    this.waiters.push(waiter)
    return () => {
      const i = this.waiters.indexOf(waiter)
      if (i >= 0) this.waiters.splice(i, 1)
    }
  }

  /**
   * Pauses the process: from now on, whoever comes to the gate waits.
   *
   * @since 1.0.0
   */
  pause(): void {
    this.closed = true
  }

  /**
   * Resumes the process, letting through every waiter, in the order they came.
   *
   * @since 1.0.0
   */
  resume(): void {
    this.closed = false
    const waiters = this.waiters
    this.waiters = []
    for (const waiter of waiters) waiter()
  }
}

/**
 * Closes `gate` during each of `pauses` on `timeline`: a timer to pause at its start, then one to resume at its end.
 *
 * @since 1.0.0
 * @category constructors
 */
export const closeDuring = (
  gate: Gate,
  pauses: ReadonlyArray<Schedule.Pause>,
  timeline: Timeline.Timeline
): void => {
  for (const pause of pauses) {
    timeline.schedule(pause.at, () => gate.pause())
    timeline.schedule(pause.at + pause.ms, () => gate.resume())
  }
}
