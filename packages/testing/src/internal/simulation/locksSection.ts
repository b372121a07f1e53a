/**
 * The program of a planned section that takes several locks together (`Lock.withLocks`, with `transaction` when it
 * asks for one store call first): wait until its time, take its name and the names it takes with it, run its steps
 * (writing each lock's fenced resource with that lock's fence) and record it as one section per lock, each with the
 * record index `SectionRecord.togetherIndexOf` gives.
 *
 * @internal
 */
import * as SectionRecord from "@leasehold/core/simulation/SectionRecord"
import { type Lease, Lock } from "@leasehold/lock"
import * as Effect from "effect/Effect"
import type * as Simulation from "../../Simulation.js"
import { optionsOf, runAs, type World } from "./section.js"

/**
 * Section `index` of the schedule, which takes `spec.name` and `together`, run by its process.
 *
 * @internal
 */
export const locksSection = (
  world: World,
  spec: Simulation.SectionSpec,
  index: number,
  together: ReadonlyArray<string>
): Effect.Effect<void> => {
  const { recorder, timeline } = world
  const count = world.schedule.sections.length
  const names = [spec.name, ...together]
  const records = names.map((name, k) =>
    recorder.newSection(
      k === 0 ? index : SectionRecord.togetherIndexOf(k - 1, index, count),
      spec.process,
      name,
      spec.api
    )
  )
  const others = records.slice(1)
  const options = { ...optionsOf(world, spec, index), ...(spec.transaction === true ? { transaction: true } : {}) }

  const body = (leases: ReadonlyArray<Lease.Lease>) =>
    Effect.suspend(() => {
      for (const [k, record] of records.entries()) {
        record.fence = leases[k]!.fence
        record.start = timeline.now
      }
      if (spec.transaction === true) {
        records[0]!.takenAtOnce = leases.every((lease) => recorder.takenAtOnce.has(lease.owner))
      }
      // Each lock's resource gets a write at the start and after every step but the last, with that lock's fence.
      const writeOthers = Effect.forEach(
        others,
        (record) => recorder.steps(record.name, record.fence!, record.index, record.index, 0, 0),
        { discard: true }
      )
      return Effect.forEach(records, (record, k) => recorder.watchLoss(record, leases[k]!, world.daemons), {
        discard: true
      }).pipe(
        Effect.andThen(writeOthers),
        Effect.andThen(
          recorder.steps(
            spec.name,
            leases[0]!.fence,
            index,
            index,
            spec.steps,
            spec.stepMs,
            undefined,
            () => writeOthers
          )
        ),
        Effect.ensuring(Effect.forEach(records, (record, k) => recorder.endWith(record, leases[k]!), { discard: true }))
      )
    })

  // The other locks' records are called and end with the section's own.
  const use = Effect.forEach(others, (record) => recorder.requested(record), { discard: true }).pipe(
    Effect.andThen(Lock.withLocks(names, body, options)),
    Effect.onExit((exit) =>
      Effect.forEach(others, (record) => recorder.outcomeOfOneOf(record)(exit), { discard: true })
    )
  )
  return runAs(world, spec, index, records[0]!, use, Effect.void, recorder.outcomeOfOneOf(records[0]!))
}
