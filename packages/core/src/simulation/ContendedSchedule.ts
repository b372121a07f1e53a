/**
 * What the `contended` class adds to a base schedule: every process hammers one name, asking again as it releases,
 * so that handover is what the schedule is about: holders that take the lock again within a turn, waiters that
 * reserve it and are kept to, reservations taken over by earlier waiters, and refusals once a reservation keeps others
 * out. The poll interval (and with it the turn, half of it, and the reservations' length) is drawn per schedule, from
 * shorter than a section to longer than several; takeover is mostly absolute, the mode that reserves. Faults hit the
 * acquire, its looks and its reservations, and some writes are held and delivered after their sender gave up.
 *
 * @since 1.0.0
 */
import * as Draws from "./Draws.js"
import * as Fault from "./Fault.js"
import * as LateSchedule from "./LateSchedule.js"
import type * as Schedule from "./Schedule.js"

/** Poll intervals to draw from, ms: turns of 10 ms to 200 ms against sections of 5 ms to 160 ms. */
const pollIntervals: ReadonlyArray<number> = [20, 50, 100, 200, 400]

/** The operations a waiter's handover goes through. */
const handoverOperations: ReadonlyArray<Fault.Operation> = ["tryAcquire", "inspect", "reserve", "release"]

/**
 * `schedule` with what the `contended` class adds, drawn from `next`.
 *
 * @since 1.0.0
 * @category generators
 */
export const withContention = (schedule: Schedule.Schedule, next: () => number): Schedule.Schedule => {
  const { int, pick } = Draws.make(next)
  const timings = { ...schedule.timings, pollIntervalMs: pick(pollIntervals) }
  const sections: Array<Schedule.SectionSpec> = []
  for (const process of schedule.processes) {
    let at = int(0, 500)
    const count = int(4, 12)
    for (let i = 0; i < count; i++) {
      const steps = int(1, 2)
      const stepMs = int(5, 80)
      sections.push({
        process: process.id,
        name: "a",
        at,
        steps,
        stepMs,
        wait: next() < 0.7 ? "forever" : int(50, 3_000),
        api: next() < 0.7 ? "withLock" : "acquire"
      })
      // The next section asks about when this one releases, had it got the lock at once: as a hot loop does.
      at += steps * stepMs + int(0, 10)
    }
  }
  sections.sort((x, y) => x.at - y.at)
  const faults: Array<Fault.ScheduledFault> = [...schedule.faults]
  const count = int(0, 6)
  for (let i = 0; i < count; i++) {
    const operation = pick(handoverOperations)
    faults.push({
      process: pick(schedule.processes).id,
      operation,
      nth: int(0, 10),
      fault: LateSchedule.faultOn(
        operation,
        { leaseMs: timings.leaseMs, lateShare: 0.5, longestMs: timings.leaseMs },
        next
      )
    })
  }
  return {
    ...schedule,
    takeover: next() < 0.8 ? "absolute" : schedule.takeover,
    timings,
    sections,
    faults
  }
}
