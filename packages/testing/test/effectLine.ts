/**
 * Effect 3's side of what the tests take from Effect where the majors differ, beside the package's own adapter
 * (Effect 4's side is `effectLine.effect4.ts`): polling a fiber, config and random draws a test sets, and a fork.
 */
import { ConfigProvider, Effect, Fiber, Random } from "effect"

export * from "../src/internal/effectLine.js"
export const poll = Fiber.poll
export const withConfig = (env: Record<string, string>) =>
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))
export const withRandomFixed = (value: number) => Effect.withRandom(Random.fixed([value]))
/** A fork starts on the scheduler: a section the horizon interrupts as it takes its lock never forks its child. */
export const childForkedAtHorizon = undefined
