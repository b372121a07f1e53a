/**
 * Leasehold in the contention and takeover tables: `ContentionLoop.loop` on the DynamoDB store, and `withLock` with
 * each takeover mode (maxClockSkew = lease / 2, so that absolute mode's bound is visible next to the lease).
 */
import * as Lock from "@leasehold/lock/Lock"
import * as Effect from "effect/Effect"
import type { Driver } from "../ContentionDriver.js"
import * as ContentionLoop from "../ContentionLoop.js"

// Plain milliseconds: the options cross IPC to the worker, and a Duration would not survive it.
const takeoverOptions = (mode: string, leaseMs: number): Lock.LockOptions => ({
  lease: leaseMs,
  maxClockSkew: leaseMs / 2,
  takeover: mode === "observed" ? "observed" : "absolute"
})

export const driver: Driver = {
  name: "Leasehold",
  contentionSettings: "defaults: poll interval lease / 10 (30 ms) jittered ×0.5–1.0, maxClockSkew 10 s",
  leaseMs: (asked) => asked,
  takeoverModes: [
    {
      name: "absolute",
      settings: "maxClockSkew lease / 2",
      // The last renew's lease end plus the skew allowance: at most a lease plus the skew after the kill.
      boundMs: (leaseMs) => leaseMs + leaseMs / 2
    },
    {
      name: "observed",
      settings: "lease watched unchanged",
      // A full lease watched unchanged, after first seeing it: at most two leases after the kill.
      boundMs: (leaseMs) => 2 * leaseMs
    }
  ],
  contend: (config, options) =>
    Effect.runPromise(ContentionLoop.loop(options).pipe(Effect.provide(ContentionLoop.storeLayer(config)))),
  hold: (config, { key, leaseMs, mode }, onHeld) =>
    Effect.runPromise(
      Lock.withLock(key, Effect.zipRight(Effect.sync(onHeld), Effect.never), takeoverOptions(mode, leaseMs)).pipe(
        Effect.provide(ContentionLoop.storeLayer(config))
      )
    ),
  takeOver: (config, { key, leaseMs, mode }, onEntered) =>
    Effect.runPromise(
      Lock.withLock(key, Effect.sync(onEntered), { ...takeoverOptions(mode, leaseMs), wait: "forever" }).pipe(
        Effect.provide(ContentionLoop.storeLayer(config))
      )
    )
}
