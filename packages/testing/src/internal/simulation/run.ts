/**
 * Runs a schedule on a discrete-event timeline: every section and operator forked at the start, everything left
 * interrupted at the horizon, then time runs on until the finalizers are done or a cap is reached.
 *
 * @internal
 */
import * as LockRecord from "@leasehold/core/record/LockRecord"
import * as ProcessClock from "@leasehold/core/simulation/ProcessClock"
import { LeaseSession, type Lock, LockStore } from "@leasehold/lock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import type * as Simulation from "../../Simulation.js"
import * as EffectLine from "../effectLine.js"
import { locksSection } from "./locksSection.js"
import { permitSection } from "./permitSection.js"
import { makeProcesses, type Process } from "./process.js"
import { readWriteSection } from "./readWriteSection.js"
import { makeRecorder } from "./recorder.js"
import { section, type World } from "./section.js"
import { Timeline } from "./timeline.js"

/**
 * Who held each lock that sections take together, in the store at the horizon (the holder names sections by process
 * and index): for the check that no such sections wait on each other in a cycle. `undefined` for a schedule without
 * them.
 *
 * A lock whose lease was over by more than the skew bound at `nowMs` (true time) counts as free: whoever waits for it
 * takes it over, so it keeps no one waiting for ever. Such a record is what a write nobody uses leaves, one that
 * landed after its sender gave it back (a take of several held by the network), with the holder name of a section
 * that holds nothing of it.
 */
const holdersOf = (backing: LockStore.LockStore, schedule: Simulation.Schedule, nowMs: number) =>
  Effect.gen(function*() {
    const names = new Set(schedule.sections.flatMap((s) => s.together === undefined ? [] : [s.name, ...s.together]))
    if (names.size === 0) return undefined
    const holders: Record<string, string | undefined> = {}
    const wallMs = ProcessClock.epochMs + nowMs
    for (const name of names) {
      const record = Option.getOrUndefined(yield* Effect.orElseSucceed(backing.inspect(name), () => Option.none()))
      holders[name] = record === undefined || LockRecord.isAvailableAt(record, wallMs, schedule.timings.maxClockSkewMs)
        ? undefined
        : record.holder
    }
    return holders
  })

/** How long after the horizon the finalizers (releases with their timeouts) may take. */
const drainMs = 120_000

/** An operator's force release, straight on the shared store, and what it cleared. */
const steal = (world: World, backing: LockStore.LockStore, spec: Simulation.Steal) =>
  world.timeline.sleep(spec.at).pipe(
    Effect.andThen(backing.forceRelease(spec.name)),
    Effect.flatMap((cleared) =>
      Effect.sync(() => {
        world.recorder.steals.push({
          at: world.timeline.now,
          name: spec.name,
          fence: Option.isSome(cleared) ? cleared.value.fence : undefined,
          holder: Option.isSome(cleared) ? cleared.value.holder : undefined
        })
      })
    ),
    Effect.ignore
  )

/**
 * The lease sessions of `process`, one at a time from the start: each opened with the schedule's timings and kept
 * until it is lost, then the next one (after a poll interval when opening one failed). Interrupted at the horizon.
 */
const keepSessions = (world: World, process: Process) => {
  const t = world.schedule.timings
  const options: Lock.LockOptions = {
    lease: t.leaseMs,
    heartbeat: t.heartbeatMs,
    safetyMargin: t.safetyMarginMs,
    maxClockSkew: t.maxClockSkewMs,
    takeover: world.schedule.takeover,
    holder: `${process.spec.id}#session`
  }
  const { sessions } = world.recorder
  const oneSession = Effect.scoped(Effect.gen(function*() {
    const session = yield* LeaseSession.make(options)
    sessions.opened++
    process.session = session
    yield* Effect.exit(session.lost)
    sessions.lost++
  })).pipe(
    Effect.exit,
    Effect.andThen(Effect.sync(() => {
      process.session = undefined
    })),
    Effect.andThen(Effect.sleep(t.pollIntervalMs))
  )
  return Effect.forever(oneSession).pipe(
    Effect.provideService(LockStore.LockStore, process.store),
    EffectLine.withClock(process.clock),
    EffectLine.withSeed(`${world.schedule.seed}/session/${process.spec.id}`)
  )
}

/** @internal */
export const run = (
  schedule: Simulation.Schedule,
  options?: { readonly store?: LockStore.LockStore | undefined }
): Simulation.History => {
  const timeline = new Timeline()
  const backing = options?.store ?? LockStore.makeMemory()
  const recorder = makeRecorder(timeline)
  const processes = makeProcesses(schedule, timeline, backing, recorder)
  const world: World = { schedule, timeline, recorder, processes, daemons: [] }

  let holdersAtHorizon: Record<string, string | undefined> | undefined
  let targetsAtHorizon: Record<string, string> | undefined
  const main = Effect.gen(function*() {
    const sessions = schedule.sessions === true
      ? yield* Effect.forEach([...processes.values()], (process) => EffectLine.forkChild(keepSessions(world, process)))
      : []
    const fibers = yield* Effect.forEach(
      schedule.sections,
      (spec, i) =>
        EffectLine.forkChild(
          spec.semaphore !== undefined
            ? permitSection(world, spec, i, spec.semaphore)
            : spec.readWrite !== undefined
            ? readWriteSection(world, spec, i, spec.readWrite)
            : spec.together !== undefined
            ? locksSection(world, spec, i, spec.together)
            : section(world, spec, i)
        )
    )
    const operators = yield* Effect.forEach(
      schedule.steals ?? [],
      (spec) => EffectLine.forkChild(steal(world, backing, spec))
    )
    yield* timeline.sleep(schedule.horizonMs)
    holdersAtHorizon = yield* holdersOf(backing, schedule, timeline.now)
    targetsAtHorizon = Object.fromEntries(recorder.targets)
    yield* Fiber.interruptAll([...fibers, ...operators])
    yield* Fiber.interruptAll(world.daemons)
    yield* Fiber.interruptAll(sessions)
  })

  const fiber = Effect.runFork(EffectLine.withoutLogs(main), { scheduler: timeline.scheduler })
  let done = false
  fiber.addObserver(() => {
    done = true
  })
  const isDone = () => done
  timeline.runUntil(schedule.horizonMs + drainMs, isDone)
  const { faults, reservations, sections, steals, writes } = recorder
  return {
    ...(schedule.sessions === true ? { sessions: recorder.sessions } : {}),
    ...(holdersAtHorizon === undefined ? {} : { holdersAtHorizon, targetsAtHorizon }),
    ...(schedule.sections.some((s) => s.readWrite !== undefined) ? { readWrite: recorder.readWrite } : {}),
    schedule,
    sections,
    writes,
    faults,
    steals,
    reservations,
    deliveries: recorder.late.deliveries,
    endedAt: timeline.now,
    finished: isDone()
  }
}
