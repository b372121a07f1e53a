/**
 * A discrete-event timeline for simulations: one true clock, timers, a synchronous scheduler, and per-process clocks
 * (wall clock offset, unskewed monotonic clock) and pause gates.
 *
 * The simulation runs its fibers on a scheduler of its own; the driver runs every ready fiber until none is left, then
 * moves time to the next timer. No real time passes, and the order of events is a function of the program alone.
 *
 * @internal
 */
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import type * as Scheduler from "effect/Scheduler"

/** Epoch ms of true time 0: fences of new names start from the clock, so start from a realistic one. */
export const epochMs = 1_700_000_000_000

/**
 * A FIFO scheduler the driver flushes: fibers run only inside `flush`, never on the host's event loop. Every fiber
 * gets the same dispatcher, so tasks run in the order they were scheduled, whichever fiber scheduled them.
 */
class DriverScheduler implements Scheduler.Scheduler, Scheduler.SchedulerDispatcher {
  readonly executionMode = "sync"
  private tasks: Array<() => void> = []

  scheduleTask(task: () => void): void {
    this.tasks.push(task)
  }

  shouldYield(fiber: Fiber.Fiber<unknown, unknown>): boolean {
    return fiber.currentOpCount >= fiber.cache.maxOpsBeforeYield
  }

  makeDispatcher(): Scheduler.SchedulerDispatcher {
    return this
  }

  flush(): void {
    for (let i = 0; i < this.tasks.length; i++) this.tasks[i]!()
    this.tasks = []
  }
}

interface Timer {
  readonly at: number
  readonly seq: number
  readonly fire: () => void
  cancelled: boolean
}

/** @internal */
export class Timeline {
  now = 0
  readonly scheduler = new DriverScheduler()
  private timers: Array<Timer> = []
  private seq = 0

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

  /** Runs ready fibers, then timers in order, until `until` or no timer is left. */
  runUntil(until: number, isDone: () => boolean = () => false): void {
    this.scheduler.flush()
    while (!isDone()) {
      const next = this.timers[0]
      if (next === undefined || next.at > until) break
      this.timers.shift()
      if (next.cancelled) continue
      this.now = next.at
      next.fire()
      this.scheduler.flush()
    }
    if (this.now < until && !isDone() && Number.isFinite(until)) this.now = until
  }

  /** A sleep on the true timeline. */
  sleep(ms: number): Effect.Effect<void> {
    return Effect.callback<void>((resume) => {
      const cancel = this.schedule(this.now + ms, () => resume(Effect.void))
      return Effect.sync(cancel)
    })
  }
}

/** Whether a process runs; paused processes block at their gate. */
export class Gate {
  private paused = false
  private waiters: Array<() => void> = []

  readonly pass: Effect.Effect<void> = Effect.suspend(() =>
    this.paused ?
      Effect.callback<void>((resume) => {
        const waiter = () => resume(Effect.void)
        this.waiters.push(waiter)
        return Effect.sync(() => {
          const i = this.waiters.indexOf(waiter)
          if (i >= 0) this.waiters.splice(i, 1)
        })
      }) :
      Effect.void
  )

  pause(): void {
    this.paused = true
  }

  resume(): void {
    this.paused = false
    const waiters = this.waiters
    this.waiters = []
    for (const waiter of waiters) waiter()
  }
}

/**
 * A process's clock: wall time = true time + the offset at that true time (constant, or stepping: jumps and freezes),
 * in milliseconds and nanoseconds; monotonic time unskewed; every sleep wakes on the true timeline and then waits at
 * the process's gate, as timers of a paused process fire late.
 *
 * @internal
 */
export const processClock = (
  timeline: Timeline,
  offsetMs: number | ((now: number) => number),
  gate: Gate
): Clock.Clock => {
  const offsetAt = typeof offsetMs === "number" ? () => offsetMs : offsetMs
  const wall = () => epochMs + timeline.now + offsetAt(timeline.now)
  // Sleeps may be fractional milliseconds (e.g. lease / 3): keep the nanosecond clocks integers, and the epoch out of
  // the float arithmetic, whose integers are not exact that far up in nanoseconds.
  const nanos = (ms: number) => BigInt(epochMs) * 1_000_000n + BigInt(Math.round(ms * 1_000_000))
  const wallNanos = () => nanos(timeline.now + offsetAt(timeline.now))
  const mono = () => nanos(timeline.now)
  return {
    currentTimeMillisUnsafe: wall,
    currentTimeMillis: Effect.sync(wall),
    currentTimeNanosUnsafe: wallNanos,
    currentTimeNanos: Effect.sync(wallNanos),
    monotonicTimeNanosUnsafe: mono,
    monotonicTimeNanos: Effect.sync(mono),
    sleep: (duration: Duration.Duration) =>
      Effect.andThen(timeline.sleep(Math.max(0, Duration.toMillis(duration))), gate.pass)
  }
}
