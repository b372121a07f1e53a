/**
 * What the bench's workers can not share between the Effect majors: Effect 4's `forkChild`, `forkDetach` and
 * `yieldNow` (`fork`, `forkDaemon` and `yieldNow()` on Effect 3); and the drivers a contention worker runs, here the
 * lock's loop alone (the peers' libraries and Leasehold's other drivers are installed and written for Effect 3).
 */
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import type { Driver } from "./ContentionDriver.js"
import * as ContentionLoop from "./ContentionLoop.js"

type Fork = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<Fiber.Fiber<A, E>, never, R>
export const forkChild: Fork = Effect.forkChild
export const forkDetach: Fork = Effect.forkDetach
export const yieldNow: Effect.Effect<void> = Effect.yieldNow

export const loadDriver = async (id: string): Promise<Pick<Driver, "contend" | "hold">> => {
  if (id !== "leasehold") throw new Error(`the Effect 4 line has no contention driver ${id}`)
  const contend: Driver["contend"] = (config, options) =>
    Effect.runPromise(ContentionLoop.loop(options).pipe(Effect.provide(ContentionLoop.storeLayer(config))))
  return { contend, hold: () => Promise.reject(new Error("the Effect 4 line's worker only runs contention loops")) }
}
