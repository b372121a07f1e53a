/**
 * Effect 4's side of what the tests alone take from Effect where the majors differ (Effect 3's is `effectLine.ts`):
 * polling a fiber, the config and random draws a test sets, where a fork at the horizon ends.
 */
import { ConfigProvider, Effect, type Fiber, Option, Random } from "effect"

export const poll = <A, E>(fiber: Fiber.Fiber<A, E>) => Effect.sync(() => Option.fromUndefinedOr(fiber.pollUnsafe()))
export const withConfig = (env: Record<string, string>) =>
  Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord(env))
export const withRandomFixed = (value: number) =>
  Effect.provideService(Random.Random, { nextDoubleUnsafe: () => value, nextIntUnsafe: () => value })
/** A fork starts at once: a section the horizon interrupts just after it took its lock has forked its child. */
export const childForkedAtHorizon = "interrupted"
