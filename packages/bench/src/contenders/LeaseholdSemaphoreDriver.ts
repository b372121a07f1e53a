/**
 * Leasehold's semaphore in the contention table: `SemaphoreLoop.loop` on the DynamoDB store, every worker taking one
 * permit of half as many as there are workers. Not a peer, and its holders are taken over as a lock's are (a holder's
 * lease over, plus the clock-skew allowance), so it has no takeover rows; `hold` and `takeOver` treat it as a lock of
 * one permit.
 */
import * as Semaphore from "@leasehold/lock/Semaphore"
import * as Effect from "effect/Effect"
import type { Driver } from "../ContentionDriver.js"
import * as ContentionLoop from "../ContentionLoop.js"
import * as SemaphoreLoop from "../SemaphoreLoop.js"

export const driver: Driver = {
  name: "Leasehold Semaphore",
  contentionSettings: "limit = processes / 2, one permit each, so that as many wait as hold; " +
    "polls every lease / 10 jittered ×0.5–1.0 as Leasehold does, with no local queue and no reservations; " +
    "defaults otherwise as for Leasehold",
  leaseMs: (asked) => asked,
  takeoverModes: [],
  contend: (config, options) =>
    Effect.runPromise(SemaphoreLoop.loop(options).pipe(Effect.provide(ContentionLoop.storeLayer(config)))),
  hold: (config, { key, leaseMs }, onHeld) =>
    Effect.runPromise(
      Semaphore.withPermits(key, Effect.zipRight(Effect.sync(onHeld), Effect.never), { limit: 1, lease: leaseMs })
        .pipe(Effect.provide(ContentionLoop.storeLayer(config)))
    ),
  takeOver: (config, { key, leaseMs }, onEntered) =>
    Effect.runPromise(
      Semaphore.withPermits(key, Effect.sync(onEntered), { limit: 1, lease: leaseMs, wait: "forever" }).pipe(
        Effect.provide(ContentionLoop.storeLayer(config))
      )
    )
}
