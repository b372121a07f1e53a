/**
 * The program of one planned section: wait until its time, take the lock the way its `api` says, run its steps
 * (writing to the fenced resource) and the child it may fork, and record all of it.
 *
 * @internal
 */
import * as LeaseSessionCore from "@leasehold/core/session/LeaseSession"
import * as SectionOptions from "@leasehold/core/simulation/SectionOptions"
import * as SectionRecord from "@leasehold/core/simulation/SectionRecord"
import { type Lease, type LeaseHandoff, LeaseSession, Lock, LockStore } from "@leasehold/lock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type * as Simulation from "../../Simulation.js"
import * as EffectLine from "../effectLine.js"
import { badOptionValue } from "./badOptions.js"
import { dataUpdates } from "./dataUpdates.js"
import type { Process } from "./process.js"
import type { Recorder } from "./recorder.js"
import type { Timeline } from "./timeline.js"

/**
 * What the sections of one run share.
 *
 * @internal
 */
export interface World {
  readonly schedule: Simulation.Schedule
  readonly timeline: Timeline
  readonly recorder: Recorder
  readonly processes: ReadonlyMap<string, Process>
  /** Detached children and loss watchers: nothing else interrupts them at the horizon. */
  readonly daemons: Array<Fiber.Fiber<void>>
}

/** The lease a layer-built acquire leaves in the layer's context. */
class SectionLease
  extends EffectLine.Service<SectionLease, Lease.Lease>()("@leasehold/testing/Simulation/SectionLease")
{}
/** Something else the section's layer provides, built next to the lease. */
class SectionOther
  extends EffectLine.Service<SectionOther, { readonly ready: true }>()("@leasehold/testing/Simulation/SectionOther")
{}

/** Notes when `lease` is lost, from a detached fiber (interrupted at the horizon: nothing else ends it). */
const watchLoss = (world: World, lease: Lease.Lease, record: Simulation.SectionRecord) =>
  world.recorder.watchLoss(record, lease, world.daemons)

/**
 * The options of section `index`: the schedule's timings, and the section's bad option if it has one.
 *
 * @internal
 */
export const optionsOf = (world: World, spec: Simulation.SectionSpec, index: number): Lock.LockOptions => ({
  ...SectionOptions.of(world.schedule, spec, index),
  ...(spec.badOption === undefined ? {} : badOptionValue(spec.badOption, world.schedule.timings).options)
})

/** The child section `index` forks while it holds `parent`, recorded as use `sections.length + index`. */
const child = (
  world: World,
  spec: Simulation.SectionSpec,
  index: number,
  options: Lock.LockOptions,
  parent: Lease.Lease,
  c: Simulation.ChildSpec
) => {
  const { recorder, timeline } = world
  const childIndex = SectionRecord.indexOf("child", index, world.schedule.sections.length)
  const childRecord = recorder.newSection(childIndex, spec.process, spec.name, "child")
  childRecord.parent = index
  const childOptions: Lock.LockOptions = { ...options, holder: SectionOptions.holderOf(spec.process, childIndex) }
  const childBody = (lease: Lease.Lease) =>
    Effect.suspend(() => {
      childRecord.fence = lease.fence
      childRecord.start = timeline.now
      const borrowed = lease.owner === parent.owner
      if (borrowed) childRecord.borrowedFrom = index
      return Effect.andThen(
        borrowed ? Effect.void : watchLoss(world, lease, childRecord),
        recorder.steps(spec.name, lease.fence, borrowed ? index : childIndex, childIndex, c.steps, c.stepMs)
      )
    }).pipe(Effect.ensuring(recorder.endWith(childRecord, lease)))
  const inner = Effect.scoped(Effect.flatMap(Lock.acquire(spec.name, childOptions), childBody))
  const nested = c.nested ? Lock.withLock(spec.name, inner, childOptions) : inner
  const entered = Effect.sync(() => {
    childRecord.outerEnteredAt = timeline.now
  })
  return Effect.sleep(c.afterMs).pipe(
    Effect.andThen(recorder.requested(childRecord)),
    Effect.andThen(Lock.withLock(spec.name, Effect.andThen(entered, nested), childOptions)),
    Effect.onExit(recorder.outcomeOf(childRecord)),
    Effect.asVoid,
    Effect.ignore
  )
}

/**
 * Started at once, up to its first wait, where Effect 4 can: a fiber interrupted before it starts never runs, not even
 * the part that notes how it ended, and the section may be interrupted before the scheduler would start it.
 */
const startAtOnce = { startImmediately: true } as const

/**
 * The other use of section `index`'s region (`sibling` or `forkedBefore`): `r.afterMs` in, it takes the same name with
 * `withLock`, as a use of its own, and writes under its own fence.
 */
const companion = (
  world: World,
  spec: Simulation.SectionSpec,
  index: number,
  options: Lock.LockOptions,
  r: Extract<Simulation.RegionSpec, { readonly kind: "sibling" | "forkedBefore" }>
) =>
  // Recorded once it starts: a sibling job that a failing acquire stops before it is forked is no use.
  Effect.suspend(() => {
    const { recorder, timeline } = world
    const companionIndex = SectionRecord.indexOf(r.kind, index, world.schedule.sections.length)
    const record = recorder.newSection(companionIndex, spec.process, spec.name, r.kind)
    const companionOptions: Lock.LockOptions = {
      ...options,
      // In ms: a zero Duration other than Duration.zero is refused as possibly a NaN one.
      wait: r.waitMs,
      holder: SectionOptions.holderOf(spec.process, companionIndex)
    }
    const body = (lease: Lease.Lease) =>
      Effect.suspend(() => {
        record.fence = lease.fence
        record.start = timeline.now
        return Effect.andThen(
          watchLoss(world, lease, record),
          recorder.steps(spec.name, lease.fence, companionIndex, companionIndex, r.steps, r.stepMs)
        )
      }).pipe(Effect.ensuring(recorder.endWith(record, lease)))
    return Effect.sleep(r.afterMs).pipe(
      Effect.andThen(recorder.requested(record)),
      Effect.andThen(
        Lock.withLock(spec.name, Effect.scoped(Effect.flatMap(Lock.acquire(spec.name), body)), companionOptions)
      ),
      Effect.onExit(recorder.outcomeOf(record)),
      Effect.asVoid,
      Effect.ignore
    )
  })

/**
 * Section `index`'s critical section `inner` in a `Lock.scoped` region, beside the other use its `region` plans: a
 * sibling job of a concurrent `Effect.all`, or a fiber forked before the acquire that the region waits for.
 */
const inRegionBeside = (
  world: World,
  spec: Simulation.SectionSpec,
  index: number,
  options: Lock.LockOptions
) =>
(inner: Effect.Effect<void, unknown, LockStore.LockStore | Scope.Scope>): Effect.Effect<
  void,
  unknown,
  LockStore.LockStore
> => {
  const r = spec.region
  if (r === undefined || r.kind === "detached") return Lock.scoped(inner)
  const other = companion(world, spec, index, options, r)
  if (r.kind === "sibling") return Lock.scoped(Effect.asVoid(Effect.all([inner, other], { concurrency: 2 })))
  return Lock.scoped(Effect.gen(function*() {
    const early = yield* EffectLine.forkChild(other, startAtOnce)
    const exit = yield* Effect.exit(inner)
    yield* Fiber.await(early)
    return yield* exit
  }))
}

/**
 * The rest of section `index` after it handed its lease off: `delayMs` later, process `h.to` resumes it with
 * `withResumed` (on its clock and its store) and runs the remaining steps, with a write first.
 */
const resumed = (
  world: World,
  spec: Simulation.SectionSpec,
  index: number,
  options: Lock.LockOptions,
  record: Simulation.SectionRecord,
  handoff: LeaseHandoff.LeaseHandoff,
  h: Simulation.HandOffSpec
) => {
  const to = world.processes.get(h.to)!
  const rest = Effect.scoped(Effect.gen(function*() {
    // Re-entry hands the program the lease its withResumed holds.
    const lease = yield* Lock.acquire(spec.name)
    record.resumedAt = world.timeline.now
    yield* watchLoss(world, lease, record)
    const left = spec.steps - h.afterSteps
    const updates = dataUpdates(spec, index, lease)
    yield* world.recorder.steps(spec.name, lease.fence, index, index, left, spec.stepMs, undefined, updates).pipe(
      // Inside the resumed lease's scope, as for any section: before its release.
      Effect.ensuring(world.recorder.endWith(record, lease))
    )
  }))
  return Effect.sleep(h.delayMs).pipe(
    Effect.andThen(
      Lock.withResumed(handoff, rest, {
        lease: options.lease,
        heartbeat: options.heartbeat,
        safetyMargin: options.safetyMargin
      })
    ),
    Effect.provideService(LockStore.LockStore, to.store),
    EffectLine.withClock(to.clock)
  )
}

/** Takes the lock the way `spec.api` says and runs `body` with the lease, in the scope the lease lives in. */
const use = (
  spec: Simulation.SectionSpec,
  options: Lock.LockOptions,
  body: (lease: Lease.Lease) => Effect.Effect<void, unknown, LockStore.LockStore>,
  region: (
    inner: Effect.Effect<void, unknown, LockStore.LockStore | Scope.Scope>
  ) => Effect.Effect<void, unknown, LockStore.LockStore>
): Effect.Effect<void, unknown, LockStore.LockStore> => {
  const inScope = <E>(acquire: Effect.Effect<Lease.Lease, E, LockStore.LockStore | Scope.Scope>) =>
    Effect.scoped(Effect.flatMap(acquire, body))
  // An acquire whose fiber ends before the lease does: the code that relies on it runs in `Lock.scoped`, whose fiber
  // takes the lease over, as the lock documents.
  const inRegion = <E>(acquire: Effect.Effect<Lease.Lease, E, LockStore.LockStore | Scope.Scope>) =>
    region(Effect.flatMap(acquire, body))
  switch (spec.api) {
    case "withLock":
      return Lock.withLock(spec.name, Effect.scoped(Effect.flatMap(Lock.acquire(spec.name), body)), options)
    case "acquire":
      return inScope(Lock.acquire(spec.name, options))
    case "acquireInTimeout":
      return inRegion(Effect.timeout(Lock.acquire(spec.name, options), Duration.millis(spec.timeoutMs ?? 1_000)))
    case "acquireInRace":
      return inRegion(Effect.race(Lock.acquire(spec.name, options), Effect.never))
    case "acquireInAll":
      return inRegion(Effect.map(
        Effect.all([Lock.acquire(spec.name, options), Effect.sleep(1)], { concurrency: 2 }),
        ([lease]) => lease
      ))
    case "acquireInLayer":
      return inRegion(Effect.gen(function*() {
        const layer = Layer.merge(
          EffectLine.layerScoped(SectionLease, Lock.acquire(spec.name, options)),
          Layer.succeed(SectionOther, { ready: true })
        )
        const context = yield* Layer.buildWithScope(layer, yield* Effect.scope)
        return Context.get(context, SectionLease)
      }))
  }
}

/**
 * Section `index` of the schedule, run by its process: on its clock, its faulty store and a random seeded per section.
 *
 * @internal
 */
export const section = (world: World, spec: Simulation.SectionSpec, index: number): Effect.Effect<void> => {
  const { recorder, timeline } = world
  const record = recorder.newSection(index, spec.process, spec.name, spec.api)
  const options = optionsOf(world, spec, index)
  const forked: Array<Fiber.Fiber<void>> = []

  const body = (lease: Lease.Lease) => {
    return Effect.gen(function*() {
      record.fence = lease.fence
      record.start = timeline.now
      if (LeaseSessionCore.sessionOf(lease.record) !== undefined) recorder.sessions.sectionsUnder++
      yield* watchLoss(world, lease, record)
      if (spec.child !== undefined) {
        const forkChild = child(world, spec, index, options, lease, spec.child)
        // Under withLock the section runs in a fiber of its own: only a detached fiber outlives it.
        if (spec.api === "withLock") world.daemons.push(yield* EffectLine.forkDetach(forkChild, startAtOnce))
        else forked.push(yield* EffectLine.forkChild(forkChild, startAtOnce))
      }
      const h = spec.handOff
      const updates = dataUpdates(spec, index, lease)
      const { fence, name } = lease
      if (h === undefined) {
        return yield* recorder.steps(name, fence, index, index, spec.steps, spec.stepMs, undefined, updates)
      }
      yield* recorder.steps(name, fence, index, index, h.afterSteps, spec.stepMs, undefined, updates)
      const handoff = yield* Lock.handOff(lease)
      record.handedOffAt = timeline.now
      yield* resumed(world, spec, index, options, record, handoff, h)
    }).pipe(
      Effect.ensuring(Effect.suspend(() => {
        // Resumed: the resumed part noted the end. Not resumed: the critical section ended with the hand-off.
        if (record.resumedAt !== undefined) return Effect.void
        return Effect.tap(recorder.endWith(record, lease), () =>
          Effect.sync(() => {
            if (record.handedOffAt !== undefined) record.end = record.handedOffAt
          }))
      }))
    )
  }

  // The section's fiber goes on to join the children it forked.
  const joinChildren = Effect.asVoid(Effect.suspend(() => Fiber.awaitAll(forked)))
  const program = Effect.suspend(() => use(spec, options, body, inRegionBeside(world, spec, index, options)))
  const r = spec.region
  if (r?.kind !== "detached") return runAs(world, spec, index, record, program, joinChildren)

  // A worker forked detached from an outer region: it runs the section and notes how it went; the outer region's
  // fiber, which relies on no lease, runs on as a use of its own.
  const bystander = recorder.newSection(
    SectionRecord.indexOf("bystander", index, world.schedule.sections.length),
    spec.process,
    spec.name,
    "bystander"
  )
  const worker = recorder.requested(record).pipe(
    Effect.andThen(program),
    Effect.onExit(recorder.outcomeOf(record)),
    Effect.ignore,
    Effect.andThen(joinChildren)
  )
  const outer = Lock.scoped(Effect.gen(function*() {
    world.daemons.push(yield* EffectLine.forkDetach(worker, startAtOnce))
    if (!r.outerEnds) yield* Effect.sleep(r.outerMs)
  })).pipe(Effect.andThen(Effect.sleep(r.outerMs)))
  return runAs(world, spec, index, bystander, outer)
}

/**
 * Runs `use`, the program of section `index`, as its process: at its time, on its clock, its faulty store and a
 * random seeded per section; records when it was called and how it ended, then runs `after`.
 *
 * @internal
 */
export const runAs = (
  world: World,
  spec: Simulation.SectionSpec,
  index: number,
  record: Simulation.SectionRecord,
  use: Effect.Effect<unknown, unknown, LockStore.LockStore>,
  after: Effect.Effect<void> = Effect.void,
  outcome: (exit: Exit.Exit<unknown, unknown>) => Effect.Effect<void> = world.recorder.outcomeOf(record)
): Effect.Effect<void> => {
  const process = world.processes.get(spec.process)!
  // Under the process's session open when the section starts, if the schedule has sessions.
  const underSession = Effect.suspend(() =>
    Effect.provideService(use, LeaseSession.CurrentLeaseSession, process.session)
  )
  return Effect.sleep(spec.at).pipe(
    Effect.andThen(world.recorder.requested(record)),
    Effect.andThen(underSession),
    Effect.onExit(outcome),
    Effect.ignore,
    Effect.andThen(after),
    Effect.provideService(LockStore.LockStore, process.store),
    EffectLine.withClock(process.clock),
    EffectLine.withSeed(`${world.schedule.seed}/${index}`)
  )
}
