/**
 * The program of a planned section on a semaphore: wait until its time, take its permits (`Semaphore.withPermits`,
 * or a scoped `Semaphore.acquire`), run its steps and record all of it.
 *
 * @internal
 */
import * as LeaseSessionCore from "@leasehold/core/session/LeaseSession"
import * as PermitGrant from "@leasehold/core/simulation/PermitGrant"
import { type Permits, Semaphore } from "@leasehold/lock"
import * as Effect from "effect/Effect"
import type * as Simulation from "../../Simulation.js"
import * as EffectLine from "../effectLine.js"
import { optionsOf, runAs, type World } from "./section.js"

/**
 * Section `index` of the schedule, which takes `permit.permits` of the semaphore `spec.name`, run by its process.
 *
 * @internal
 */
export const permitSection = (
  world: World,
  spec: Simulation.SectionSpec,
  index: number,
  permit: Simulation.PermitSpec
): Effect.Effect<void> => {
  const { recorder, timeline } = world
  const record = recorder.newSection(index, spec.process, spec.name, spec.api)
  record.permits = permit.permits
  record.limit = permit.limit
  const lockOptions = optionsOf(world, spec, index)
  const options: Semaphore.SemaphoreOptions = { ...lockOptions, limit: permit.limit, permits: permit.permits }

  // Under withPermits the section never sees its handle: its fence is the one the store granted its holder.
  const body = (held: Permits.Permits | undefined) =>
    Effect.suspend(() => {
      const granted = recorder.permitGrants.get(lockOptions.holder ?? "")
      const checked = PermitGrant.check(`${spec.process}#${index}`, held?.fence, granted)
      if (checked._tag === "Mismatch") return EffectLine.dieMessage(checked.message)
      const { grant } = checked
      record.fence = grant.fence
      record.tookOver = grant.tookOver
      record.start = timeline.now
      if (held !== undefined && LeaseSessionCore.sessionOf(held.record) !== undefined) {
        recorder.sessions.sectionsUnder++
        recorder.sessions.permitSectionsUnder++
      }
      return Effect.andThen(
        held === undefined ? Effect.void : recorder.watchLoss(record, held, world.daemons),
        recorder.steps(spec.name, grant.fence, index, index, spec.steps, spec.stepMs, { permits: permit.permits })
      )
    }).pipe(
      Effect.ensuring(
        held === undefined
          ? Effect.sync(() => {
            record.end = timeline.now
          })
          : recorder.endWith(record, held)
      )
    )

  const use = spec.api === "withLock"
    ? Semaphore.withPermits(spec.name, body(undefined), options)
    : Effect.scoped(Effect.flatMap(Semaphore.acquire(spec.name, options), body))
  return runAs(world, spec, index, record, Effect.suspend(() => use))
}
