/**
 * What the lock's tests use that Effect 3 and Effect 4 name or shape differently, under Effect 4's names (Effect 4's
 * side): every test reads the same on both lines, and learns here which line hands a lease on how.
 */
import { Cause, Clock, ConfigProvider, Context, Duration, Effect, Exit, Fiber, Layer, Logger } from "effect"
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

export type Reason<E> = Cause.Reason<E>
export const reasons = <E>(cause: Cause.Cause<E>): ReadonlyArray<Reason<E>> => cause.reasons

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
export const defaultClock = (): Clock.Clock => Clock.Clock.defaultValue()
export const withClock = (clock: Clock.Clock) => Effect.provideService(Clock.Clock, clock)

/** A `Random` that returns `values` in turn, over and over. */
export const withFixedRandom = (values: [number, ...Array<number>]) => {
  let index = 0
  const next = () => values[index++ % values.length]!
  return Effect.provideService(Random.Random, { nextDoubleUnsafe: next, nextIntUnsafe: () => Math.floor(next()) })
}
export const withSeed = Random.withSeed

export const warningLogger = (onWarning: (message: unknown, cause: Cause.Cause<unknown>) => void) =>
  Logger.layer([Logger.make(({ cause, logLevel, message }) => logLevel === "Warn" && onWarning(message, cause))])

export type SpanOptions = Parameters<Tracer.Tracer["span"]>[0]
export const makeTracer = (span: (options: SpanOptions) => Tracer.Span): Tracer.Tracer => Tracer.make({ span })

export const counterTotal = (name: string): Effect.Effect<number> =>
  Effect.map(
    Metric.snapshot,
    (pairs) => pairs.reduce((sum, pair) => sum + (pair.id === name ? Number((pair.state as any).count ?? 0) : 0), 0)
  )

export const fromEnvRecord = (env: Record<string, string>) => ConfigProvider.fromEnvRecord(env)
export const withConfigProvider = (provider: ConfigProvider.ConfigProvider) =>
  Effect.provideService(ConfigProvider.ConfigProvider, provider)

export const Service = <Shape>(key: string) => Context.Service<Shape>(key)
export const layerEffectDiscard = Layer.effectDiscard

export const positiveNumber = Schema.Number.check(Schema.isGreaterThan(0))
export const isSchemaError = Schema.isSchemaError
