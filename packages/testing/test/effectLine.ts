/**
 * Effect 3's side of what the tests alone take from Effect where the majors differ (Effect 4's is
 * `effectLine.effect4.ts`): polling a fiber, the config and random draws a test sets, where a fork at the horizon ends.
 */
import { ConfigProvider, Effect, Fiber, Random } from "effect"

export const poll = Fiber.poll
export const withConfig = (env: Record<string, string>) =>
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))
export const withRandomFixed = (value: number) => Effect.withRandom(Random.fixed([value]))
/** A fork starts on the scheduler: a section the horizon interrupts as it takes its lock never forks its child. */
export const childForkedAtHorizon = undefined
