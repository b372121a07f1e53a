/**
 * Effect 4's side of what the tests alone take from Effect where the majors differ (Effect 3's is in `effectLine.ts`):
 * polling a fiber, the config and random draws a test sets, and a line's own outcome.
 */
import { ConfigProvider, Effect, type Fiber, Option, Random } from "effect"

export const poll = <A, E>(fiber: Fiber.Fiber<A, E>) => Effect.sync(() => Option.fromUndefinedOr(fiber.pollUnsafe()))
export const withConfig = (env: Record<string, string>) =>
  Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord(env))
export const withRandomFixed = (value: number) =>
  Effect.provideService(Random.Random, { nextDoubleUnsafe: () => value, nextIntUnsafe: () => value })
/** A section that waits for its lock takes it at the horizon and forks its child at once, before it is interrupted. */
export const childForkedAtHorizon = "interrupted"
