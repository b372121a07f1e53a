/**
 * A discrete-event timeline for simulations, on the Effect side: the core's timeline with a scheduler that queues the
 * fibers' tasks on it and sleeps on its timers, pause gates a fiber passes, and per-process clocks as Effect clocks
 * over the core's readings (wall clock offset, unskewed monotonic clock).
 *
 * The simulation runs its fibers on a scheduler of its own; the driver runs every ready fiber until none is left, then
 * moves time to the next timer. No real time passes, and the order of events is a function of the program alone.
 *
 * @internal
 */
import * as SimGate from "@leasehold/core/simulation/Gate"
import * as ProcessClock from "@leasehold/core/simulation/ProcessClock"
import * as SimTimeline from "@leasehold/core/simulation/Timeline"
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as EffectLine from "../effectLine.js"

/**
 * A FIFO scheduler the driver flushes: fibers run only inside the timeline's flush, never on the host's event loop.
 * On Effect 4 it is also the dispatcher every fiber gets, so tasks run in the order they were scheduled, whichever
 * fiber scheduled them.
 */
class DriverScheduler {
  readonly executionMode = "sync"

  constructor(private readonly timeline: SimTimeline.Timeline) {}

  scheduleTask(task: () => void): void {
    this.timeline.enqueue(task)
  }

  readonly shouldYield = EffectLine.shouldYield

  makeDispatcher(): DriverScheduler {
    return this
  }

  flush(): void {
    this.timeline.flush()
  }
}

/** @internal */
export class Timeline extends SimTimeline.Timeline {
  readonly scheduler = new DriverScheduler(this)

  /** A sleep on the true timeline. */
  sleep(ms: number): Effect.Effect<void> {
    return EffectLine.callback<void>((resume) => {
      const cancel = this.schedule(this.now + ms, () => resume(Effect.void))
      return Effect.sync(cancel)
    })
  }
}

/** Whether a process runs; paused processes block at their gate. */
export class Gate extends SimGate.Gate {
  readonly pass: Effect.Effect<void> = Effect.suspend(() =>
    this.paused ?
      EffectLine.callback<void>((resume) => {
        const withdraw = this.wait(() => resume(Effect.void))
        return Effect.sync(withdraw)
      }) :
      Effect.void
  )
}

/**
 * A process's clock: the core's readings of its wall time (true time + the offset at that true time) and monotonic
 * time (unskewed); every sleep wakes on the true timeline and then waits at the process's gate, as timers of a paused
 * process fire late.
 *
 * @internal
 */
export const processClock = (
  timeline: Timeline,
  offsetMs: number | ((now: number) => number),
  gate: Gate
): Clock.Clock =>
  EffectLine.makeClock(
    ProcessClock.make(timeline, offsetMs),
    (duration) => Effect.andThen(timeline.sleep(Math.max(0, Duration.toMillis(duration))), gate.pass)
  )
