/**
 * What the bench's workers can not share between the Effect majors: Effect 4's `forkChild`, `forkDetach` and
 * `yieldNow`, spelled `fork`, `forkDaemon` and `yieldNow()` on Effect 3; and the drivers a contention worker runs, here
 * every contender's (the peers' libraries and Leasehold's other drivers are installed and written for this line).
 */
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import type { Driver } from "./ContentionDriver.js"
import * as Drivers from "./Drivers.js"

type Fork = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<Fiber.Fiber<A, E>, never, R>
export const forkChild: Fork = Effect.fork
export const forkDetach: Fork = Effect.forkDaemon
export const yieldNow: Effect.Effect<void> = Effect.yieldNow()

export const loadDriver = (id: string): Promise<Pick<Driver, "contend" | "hold">> =>
  Drivers.isId(id) ? Drivers.load(id) : Promise.reject(new Error(`unknown contender ${id}`))
