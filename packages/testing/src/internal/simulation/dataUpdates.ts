/**
 * A section's data updates, as a careful user who keeps progress notes with the lock writes them: each under a
 * timeout, a slow or failed one skipped (the section's work does not depend on it), a lost lease the end of the
 * section.
 *
 * @internal
 */
import type { Lease, LockError } from "@leasehold/lock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Simulation from "../../Simulation.js"

/**
 * What section `index` runs between its writes on `lease`, if it updates its data: the argument to
 * `Recorder.steps`.
 *
 * @internal
 */
export const dataUpdates = (
  spec: Simulation.SectionSpec,
  index: number,
  lease: Lease.Lease
): ((k: number) => Effect.Effect<void, LockError.LockLost | LockError.LockConfigError>) | undefined => {
  const updates = spec.updates
  if (updates === undefined) return undefined
  return (k) =>
    lease.updateData(`${spec.process}#${index} after write ${k}`).pipe(
      Effect.timeoutOption(Duration.millis(updates.timeoutMs)),
      Effect.catchTag("LockStoreError", () => Effect.void),
      Effect.asVoid
    )
}
