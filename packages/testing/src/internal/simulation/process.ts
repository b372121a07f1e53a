/**
 * A simulated process: its pause gate (closed during its planned pauses), its clock (skewed, stepping, and late
 * while paused) and its own view of the shared store (faulty per the schedule, and stopping at the gate).
 *
 * @internal
 */
import * as SimGate from "@leasehold/core/simulation/Gate"
import * as WallClock from "@leasehold/core/simulation/WallClock"
import { type LeaseSession, LockStore } from "@leasehold/lock"
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as FaultyStore from "../../FaultyStore.js"
import type * as Simulation from "../../Simulation.js"
import * as PermitGrants from "./permitGrants.js"
import type { Recorder } from "./recorder.js"
import * as Reservations from "./reservations.js"
import { Gate, processClock, type Timeline } from "./timeline.js"

/** @internal */
export interface Process {
  readonly spec: Simulation.ProcessSpec
  readonly gate: Gate
  readonly store: LockStore.LockStore
  readonly clock: Clock.Clock
  /** The lease session its sections start under, when the schedule has sessions: the one open now, if any. */
  session: LeaseSession.LeaseSession | undefined
}

/**
 * `backing` noting each lock taken over from a holder under a session judged dead (an `orphan` acquire that won), and
 * each semaphore holder removed for the same reason.
 */
const countingOrphanTakeovers = (backing: LockStore.LockStore, recorder: Recorder): LockStore.LockStore => ({
  ...backing,
  tryAcquire: (request) =>
    Effect.tap(backing.tryAcquire(request), (result) =>
      Effect.sync(() => {
        if (request.orphan !== undefined && result._tag === "Acquired") recorder.sessions.orphanTakeovers++
      })),
  tryAcquirePermits: (request) =>
    Effect.tap(backing.tryAcquirePermits(request), (result) =>
      Effect.sync(() => {
        if (result._tag !== "Acquired" || request.create) return
        recorder.sessions.permitOrphansRemoved += request.expired.filter((e) => e.session !== undefined).length
      }))
})

/**
 * `backing` noting each reservation it made for a read/write lock's waiter, as applied (a late one included).
 */
const countingPermitReservations = (backing: LockStore.LockStore, recorder: Recorder): LockStore.LockStore => ({
  ...backing,
  reservePermits: (request) =>
    Effect.tap(backing.reservePermits(request), (result) =>
      Effect.sync(() => {
        if (result._tag === "Reserved") recorder.readWrite.reservations++
      }))
})

/**
 * `store` noting, for each holder (a section, see `SectionOptions.holderOf`), the lock its last acquiring write was
 * sent for, whatever became of it: the lock a section that takes several together is waiting for. A take of several
 * in one call waits for none of them (it is refused at once when one is not free), so it leaves its holder waiting
 * for no lock until its next write; the owners of the locks such a call answered as taken are noted too, as the
 * caller heard the answer, so that a section can tell whether it runs on them.
 */
const notingTargets = (store: LockStore.LockStore, recorder: Recorder): LockStore.LockStore => {
  const tryAcquireAll = store.tryAcquireAll
  return {
    ...store,
    tryAcquire: (request) =>
      Effect.suspend(() => {
        recorder.targets.set(request.holder, request.name)
        return store.tryAcquire(request)
      }),
    ...(tryAcquireAll === undefined ? {} : {
      tryAcquireAll: (request: LockStore.AcquireAllRequest) =>
        Effect.suspend(() => {
          for (const one of request.requests) recorder.targets.delete(one.holder)
          return Effect.tap(tryAcquireAll(request), (result) =>
            Effect.sync(() => {
              if (result._tag !== "Acquired") return
              for (const record of result.records) {
                if (record.owner !== undefined) recorder.takenAtOnce.add(record.owner)
              }
            }))
        })
    })
  }
}

/**
 * Every process of the schedule, by id, on `backing`; pauses are scheduled on the timeline, faults recorded.
 *
 * @internal
 */
export const makeProcesses = (
  schedule: Simulation.Schedule,
  timeline: Timeline,
  backing: LockStore.LockStore,
  recorder: Recorder
): ReadonlyMap<string, Process> => {
  const plan = FaultyStore.fromList(schedule.faults)
  const shared = countingPermitReservations(countingOrphanTakeovers(backing, recorder), recorder)
  return new Map(schedule.processes.map((spec) => {
    const gate = new Gate()
    SimGate.closeDuring(gate, spec.pauses, timeline)
    const clock = processClock(timeline, WallClock.offsetOf(spec), gate)
    const recorded = Reservations.recording(
      PermitGrants.recording(shared, recorder.permitGrants),
      spec.id,
      timeline,
      recorder.reservations,
      clock
    )
    const faulty = FaultyStore.make(recorder.late.recording(recorded, spec.id), {
      process: spec.id,
      plan,
      gate: gate.pass,
      onFault: (call, fault) => recorder.faults.push({ at: timeline.now, call, fault }),
      onDelivery: recorder.late.delivered
    })
    const store = notingTargets(faulty, recorder)
    const process: Process = { spec, gate, store, clock, session: undefined }
    return [spec.id, process] as const
  }))
}
