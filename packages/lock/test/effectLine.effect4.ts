/**
 * What the lock's tests use that Effect 3 and Effect 4 name or shape differently, under Effect 4's names; this is Effect
 * 4's side. Here so that each test is written once, and so that a test can tell which line hands a lease on how.
 */
import { Cause, Clock, ConfigProvider, Context, type Duration, Effect, Exit, Fiber, Layer, Logger } from "effect"
import { Metric, Option, Random, Schema, Tracer } from "effect"

export { TestClock } from "effect/testing"

export const major = 4
/** A lease whose acquiring fiber ended goes to the fiber of the `Lock.scoped` region around it (its guard). */
export const regionGuard = true

export const forkChild = Effect.forkChild
export const forkDetach = Effect.forkDetach
export const yieldNow = Effect.yieldNow
export const poll = <A, E>(fiber: Fiber.Fiber<A, E>) => Effect.sync(() => Option.fromUndefinedOr(fiber.pollUnsafe()))
export const hasInterrupts = Exit.hasInterrupts
export const reasons = <E>(cause: Cause.Cause<E>) => cause.reasons

export type DurationInput = Duration.Input
/** The lock reads monotonic time; a test's wall time in nanoseconds is its milliseconds'. */
export const makeClock = (millis: () => number, monotonic: () => bigint, sleep: Clock.Clock["sleep"]): Clock.Clock => ({
  currentTimeMillisUnsafe: millis,
  currentTimeMillis: Effect.sync(millis),
  currentTimeNanosUnsafe: () => BigInt(millis()) * 1_000_000n,
  currentTimeNanos: Effect.sync(() => BigInt(millis()) * 1_000_000n),
  monotonicTimeNanosUnsafe: monotonic,
  monotonicTimeNanos: Effect.sync(monotonic),
  sleep
})
export const currentTimeMillisUnsafe = (clock: Clock.Clock) => clock.currentTimeMillisUnsafe()
export const monotonicTimeNanosUnsafe = (clock: Clock.Clock) => clock.monotonicTimeNanosUnsafe()
export const withClock = Effect.provideService(Clock.Clock)

/** Effect 4 has no `Random.fixed`: this one returns `values` in turn, over and over. */
export const withFixedRandom = (values: [number, ...Array<number>]) => {
  let index = 0
  const next = () => values[index++ % values.length]!
  return Effect.provideService(Random.Random, { nextDoubleUnsafe: next, nextIntUnsafe: () => Math.floor(next()) })
}
export const withSeed = Random.withSeed
export const warningLogger = (warn: (message: unknown, cause: Cause.Cause<unknown>) => void) =>
  Logger.layer([Logger.make((o) => o.logLevel === "Warn" && warn(o.message, o.cause))])
export const makeTracer = (span: Tracer.Tracer["span"]): Tracer.Tracer => Tracer.make({ span })
export const metricStates = (name: string) =>
  Effect.map(Metric.snapshot, (all) => all.flatMap((snapshot) => snapshot.id === name ? [snapshot.state] : []))

export const fromEnvRecord = (env: Record<string, string>) => ConfigProvider.fromEnvRecord(env)
export const withConfigProvider = Effect.provideService(ConfigProvider.ConfigProvider)
export const Service = <Shape>(key: string) => Context.Service<Shape>(key)
export const layerEffectDiscard = Layer.effectDiscard
export const positiveNumber = Schema.Number.check(Schema.isGreaterThan(0))
export const isSchemaError = Schema.isSchemaError
