/**
 * Leasehold's leader election in the contention table: `ElectionLoop.loop` on the DynamoDB store, every worker a
 * candidate. Not a peer and not a lock of its own (a term is a `Lock.acquire`), so it has no takeover rows: a crashed
 * leader is taken over as the lock's holder is.
 */
import * as LeaderElection from "@leasehold/lock/LeaderElection"
import * as Effect from "effect/Effect"
import type { Driver } from "../ContentionDriver.js"
import * as ContentionLoop from "../ContentionLoop.js"
import * as ElectionLoop from "../ElectionLoop.js"

export const driver: Driver = {
  name: "Leasehold LeaderElection",
  contentionSettings: "each term leads for the hold, then completes (resigns); defaults as for Leasehold",
  leaseMs: (asked) => asked,
  takeoverModes: [],
  contend: (config, options) =>
    Effect.runPromise(ElectionLoop.loop(options).pipe(Effect.provide(ContentionLoop.storeLayer(config)))),
  hold: (config, { key, leaseMs }, onHeld) =>
    Effect.runPromise(
      LeaderElection.run(key, () => Effect.zipRight(Effect.sync(onHeld), Effect.never), { lease: leaseMs }).pipe(
        Effect.provide(ContentionLoop.storeLayer(config))
      )
    ),
  takeOver: (config, { key, leaseMs }, onEntered) =>
    Effect.runPromise(
      LeaderElection.run(key, () => Effect.sync(onEntered), { lease: leaseMs }).pipe(
        Effect.provide(ContentionLoop.storeLayer(config))
      )
    )
}
