/**
 * What the lock's tests use that Effect 3 and Effect 4 name or shape differently, under Effect 4's names (Effect 3's
 * side): every test reads the same on both lines, and learns here which line hands a lease on how.
 */
import { Cause, Clock, ConfigProvider, Context, type Duration, Effect, Exit, Fiber, Layer, Logger } from "effect"
import { Metric, Option, ParseResult, Random, Schema, Tracer } from "effect"

export * as TestClock from "effect/TestClock"

export const major = 3
/** A lease whose acquiring fiber ended goes to whoever joins that fiber (a join hook); no region guard does it. */
export const regionGuard = false

export const forkChild = Effect.fork
export const forkDetach = Effect.forkDaemon
export const yieldNow = Effect.yieldNow()
export const poll = Fiber.poll
export const hasInterrupts = Exit.isInterrupted

/** What a cause holds, as Effect 4 lists it. */
export type Reason<E> = Cause.Fail<E> | Cause.Die | Cause.Interrupt
export const reasons = <E>(cause: Cause.Cause<E>): ReadonlyArray<Reason<E>> =>
  Cause.reduce(
    cause,
    [] as ReadonlyArray<Reason<E>>,
    (all, part) =>
      part._tag === "Fail" || part._tag === "Die" || part._tag === "Interrupt"
        ? Option.some([...all, part])
        : Option.none()
  )

export type DurationInput = Duration.DurationInput

/** Effect 3's clock has one reading in nanoseconds, which the lock takes for monotonic time. */
export const makeClock = (millis: () => number, monotonic: () => bigint, sleep: Clock.Clock["sleep"]): Clock.Clock => ({
  [Clock.ClockTypeId]: Clock.ClockTypeId,
  unsafeCurrentTimeMillis: millis,
  currentTimeMillis: Effect.sync(millis),
  unsafeCurrentTimeNanos: monotonic,
  currentTimeNanos: Effect.sync(monotonic),
  sleep
})
export const currentTimeMillisUnsafe = (clock: Clock.Clock) => clock.unsafeCurrentTimeMillis()
export const monotonicTimeNanosUnsafe = (clock: Clock.Clock) => clock.unsafeCurrentTimeNanos()
export const defaultClock = (): Clock.Clock => Clock.make()
export const withClock = Effect.withClock

export const withFixedRandom = (values: [number, ...Array<number>]) => Effect.withRandom(Random.fixed(values))
export const withSeed = (seed: string) => Effect.withRandom(Random.make(seed))

/** In place of the default logger, one that hands `onWarning` what is logged at warning level. */
export const warningLogger = (onWarning: (message: unknown, cause: Cause.Cause<unknown>) => void) =>
  Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ cause, logLevel, message }) => logLevel._tag === "Warning" && onWarning(message, cause))
  )

/** What a span starts with; Effect 3's tracer takes it as arguments. */
export type SpanOptions = Pick<Tracer.Span, "name" | "parent" | "context" | "links" | "sampled" | "kind"> & {
  readonly startTime: bigint
}
export const makeTracer = (span: (options: SpanOptions) => Tracer.Span): Tracer.Tracer =>
  Tracer.make({
    span: (name, parent, context, links, startTime, kind) =>
      span({ name, parent, context, links, startTime, kind, sampled: true }),
    context: (f) => f()
  })

/** A counter's count over all its attribute sets. */
export const counterTotal = (name: string): Effect.Effect<number> =>
  Effect.map(
    Metric.snapshot,
    (pairs) =>
      pairs.reduce((sum, pair) => sum + (pair.metricKey.name === name ? (pair.metricState as any).count ?? 0 : 0), 0)
  )

export const fromEnvRecord = (env: Record<string, string>) => ConfigProvider.fromMap(new Map(Object.entries(env)))
export const withConfigProvider = (provider: ConfigProvider.ConfigProvider) => Effect.withConfigProvider(provider)

export const Service = <Shape>(key: string) => Context.GenericTag<Shape>(key)
export const layerEffectDiscard = Layer.scopedDiscard

export const positiveNumber = Schema.Number.pipe(Schema.positive())
export const isSchemaError = ParseResult.isParseError
