/**
 * The program of a planned section under a read/write lock: wait until its time, take the lock of its name in its
 * mode (`ReadWriteLock.withReadLock` or `withWriteLock`, or a scoped `acquireRead` or `acquireWrite`), run its steps,
 * a writer writing and a reader reading the resource behind the lock with its fence, and record all of it.
 *
 * @internal
 */
import * as ReadWriteMode from "@leasehold/core/record/ReadWriteMode"
import * as PermitGrant from "@leasehold/core/simulation/PermitGrant"
import { type Permits, ReadWriteLock } from "@leasehold/lock"
import * as Effect from "effect/Effect"
import type * as Simulation from "../../Simulation.js"
import * as EffectLine from "../effectLine.js"
import { optionsOf, runAs, type World } from "./section.js"

/**
 * Section `index` of the schedule, which takes the read/write lock `spec.name` in `mode`, run by its process.
 *
 * @internal
 */
export const readWriteSection = (
  world: World,
  spec: Simulation.SectionSpec,
  index: number,
  mode: ReadWriteMode.Mode
): Effect.Effect<void> => {
  const { recorder, timeline } = world
  const record = recorder.newSection(index, spec.process, spec.name, spec.api)
  record.mode = mode
  record.permits = ReadWriteMode.permitsOf(mode)
  record.limit = ReadWriteMode.limit
  const options = optionsOf(world, spec, index)

  const body = (held: Permits.Permits) =>
    Effect.suspend(() => {
      // The handle's fence must be the one the store granted its holder: a fence the run can vouch for.
      const checked = PermitGrant.check(
        `${spec.process}#${index}`,
        held.fence,
        recorder.permitGrants.get(options.holder ?? "")
      )
      if (checked._tag === "Mismatch") return EffectLine.dieMessage(checked.message)
      record.fence = held.fence
      record.tookOver = checked.grant.tookOver
      record.start = timeline.now
      return Effect.andThen(
        recorder.watchLoss(record, held, world.daemons),
        recorder.steps(spec.name, held.fence, index, index, spec.steps, spec.stepMs, { permits: held.permits, mode })
      )
    }).pipe(Effect.ensuring(recorder.endWith(record, held)))

  const use = spec.api === "withLock"
    ? (mode === "read" ? ReadWriteLock.withReadLock : ReadWriteLock.withWriteLock)(spec.name, body, options)
    : Effect.scoped(
      Effect.flatMap(
        mode === "read"
          ? ReadWriteLock.acquireRead(spec.name, options)
          : ReadWriteLock.acquireWrite(spec.name, options),
        body
      )
    )
  return runAs(world, spec, index, record, Effect.suspend(() => use))
}
