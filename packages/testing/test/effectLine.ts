/**
 * Effect 3's side of what the tests alone take from Effect where the majors differ (Effect 4's is in
 * `effectLine.effect4.ts`): polling a fiber, the config and random draws a test sets, and a line's own outcome.
 */
import { ConfigProvider, Effect, Fiber, Random } from "effect"

export const poll = Fiber.poll
export const withConfig = (env: Record<string, string>) =>
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))
export const withRandomFixed = (value: number) => Effect.withRandom(Random.fixed([value]))
/** The horizon's interruption reaches a section that waits for its lock before the lock does: it forks no child. */
export const childForkedAtHorizon = undefined
