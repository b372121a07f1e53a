/**
 * A discrete-event timeline for simulations, without a runtime: one true clock, the tasks ready to run now, and
 * timers. Each Effect line queues its fibers' tasks here and sets its sleeps as timers; the driver runs every ready
 * task until none is left, then moves time to the next timer. No real time passes, and the order of events is a
 * function of the program alone.
 *
 * @since 1.0.0
 */

interface Timer {
  readonly at: number
  readonly seq: number
  readonly fire: () => void
  cancelled: boolean
}

/**
 * One run's true time (milliseconds from the start of the run), its ready tasks in FIFO order and its timers in the
 * order of their times, then of their setting.
 *
 * @since 1.0.0
 * @category models
 */
export class Timeline {
  /**
   * True time, in milliseconds from the start of the run.
   *
   * @since 1.0.0
   */
  now = 0
  private tasks: Array<() => void> = []
  private timers: Array<Timer> = []
  private seq = 0

  /**
   * Queues `task` to run at the next flush, after every task queued before it.
   *
   * @since 1.0.0
   */
  enqueue(task: () => void): void {
    this.tasks.push(task)
  }

  /**
   * Runs every queued task in order, and the tasks they queue, until none is left.
   *
   * @since 1.0.0
   */
  flush(): void {
    for (let i = 0; i < this.tasks.length; i++) this.tasks[i]!()
    this.tasks = []
  }

  /**
   * Sets a timer that calls `fire` at true time `at` (now, if `at` is past); the result cancels it.
   *
   * @since 1.0.0
   */
  schedule(at: number, fire: () => void): () => void {
    const timer: Timer = { at: Math.max(at, this.now), seq: this.seq++, fire, cancelled: false }
    // Keep timers sorted by (at, seq); few timers are live at once, so insertion is cheap.
    let i = this.timers.length
    while (i > 0 && this.timers[i - 1]!.at > timer.at) i--
    this.timers.splice(i, 0, timer)
    return () => {
      timer.cancelled = true
    }
  }

  /**
   * Runs ready tasks, then timers in order, until `until`, `isDone`, or no timer is left.
   *
   * @since 1.0.0
   */
  runUntil(until: number, isDone: () => boolean = () => false): void {
    this.flush()
    while (!isDone()) {
      const next = this.timers[0]
      if (next === undefined || next.at > until) break
      this.timers.shift()
      if (next.cancelled) continue
      this.now = next.at
      next.fire()
      this.flush()
    }
    if (this.now < until && !isDone() && Number.isFinite(until)) this.now = until
  }
}
