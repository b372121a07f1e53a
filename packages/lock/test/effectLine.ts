/**
 * What the lock's tests use that Effect 3 and Effect 4 name or shape differently, under Effect 4's names; this is Effect
 * 3's side. Here so that each test is written once, and so that a test can tell which line hands a lease on how.
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
type Reason<E> = Cause.Fail<E> | Cause.Die | Cause.Interrupt
const isReason = <E>(part: Cause.Cause<E>): part is Reason<E> => ["Fail", "Die", "Interrupt"].includes(part._tag)
/** What a cause holds, as Effect 4 lists it. */
export const reasons = <E>(cause: Cause.Cause<E>) =>
  Cause.reduce(cause, [] as ReadonlyArray<Reason<E>>, (all, part) => Option.some(isReason(part) ? [...all, part] : all))

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
export const withClock = Effect.withClock

export const withFixedRandom = (values: [number, ...Array<number>]) => Effect.withRandom(Random.fixed(values))
export const withSeed = (seed: string) => Effect.withRandom(Random.make(seed))
/** In place of the default logger, one that hands `warn` what is logged at warning level. */
export const warningLogger = (warn: (message: unknown, cause: Cause.Cause<unknown>) => void) =>
  Logger.replace(Logger.defaultLogger, Logger.make((o) => o.logLevel._tag === "Warning" && warn(o.message, o.cause)))
/** What a span starts with: Effect 3's tracer takes it as arguments. */
type Started = Pick<Tracer.Span, "name" | "parent" | "context" | "links" | "sampled" | "kind"> & { startTime: bigint }
export const makeTracer = (span: (options: Started) => Tracer.Span): Tracer.Tracer =>
  Tracer.make({
    span: (name, parent, context, links, startTime, kind) =>
      span({ name, parent, context, links, startTime, kind, sampled: true }),
    context: (f) => f()
  })
/** The states of a metric, one for each set of attributes it was updated with. */
export const metricStates = (name: string) =>
  Effect.map(Metric.snapshot, (all) => all.flatMap((pair) => pair.metricKey.name === name ? [pair.metricState] : []))

export const fromEnvRecord = (env: Record<string, string>) => ConfigProvider.fromMap(new Map(Object.entries(env)))
export const withConfigProvider = Effect.withConfigProvider
export const Service = <Shape>(key: string) => Context.GenericTag<Shape>(key)
export const layerEffectDiscard = Layer.scopedDiscard
export const positiveNumber = Schema.Number.pipe(Schema.positive())
export const isSchemaError = ParseResult.isParseError
