/**
 * What the lock's shell does differently on Effect 3 and Effect 4, by Effect 4's names: renamed APIs and types, and
 * the mechanisms that differ (who takes a wrapped acquire's lease over, what a root fiber keeps), so that every other
 * module is written once. This is Effect 4's; `effectLine.ts` is Effect 3's, with the same names and types.
 *
 * @internal
 */
import type * as Checked from "@leasehold/core/Checked"
import { ambiguousNaNZero } from "@leasehold/core/options/DurationInput"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Fibers from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Metric from "effect/Metric"
import * as Random from "effect/Random"
import * as References from "effect/References"
import * as Results from "effect/Result"
import * as Scheduler from "effect/Scheduler"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import * as Tracer from "effect/Tracer"

export type DurationInput = Duration.Input
export type Fiber<A, E = never> = Fibers.Fiber<A, E>
type AnyFiber = Fiber<unknown, unknown>
export type Result<A, E> = Results.Result<A, E>
export type Codec<A, I = A, R = never> = Schema.Codec<A, I, R, R>
export type SchemaError = Schema.SchemaError
export type ConfigError = Config.ConfigError
export type Service<I, S> = Context.Service<I, S>
/** What a layer of a `Reference` provides: on Effect 4 nothing, since a reference is no identifier of a context. */
export type ReferenceLayer<_Self, E = never> = Layer.Layer<never, E>
export type Success<T> = Effect.Success<T>
export type Error<T> = Effect.Error<T>
export type Services<T> = Effect.Services<T>
/** Effect 4 has no join hook: `Lock.scoped` guards its region, and each acquire tells the guard what it holds. */
export { scoped, settled, watchEnd } from "./process/leaseGuard.js"
export const withFiber = Effect.withFiber
export const interruptUnsafe = (fiber: AnyFiber, by: AnyFiber): void => fiber.interruptUnsafe(by.id)
/** Interrupts without waiting: on Effect 4 from the current fiber, at once. */
export const interruptFork = (fiber: AnyFiber): Effect.Effect<void> =>
  Effect.withFiber((self) => Effect.sync(() => fiber.interruptUnsafe(self.id)))
export type ForkOptions = { readonly startImmediately?: boolean }
export const forkChild = <A, E, R>(self: Effect.Effect<A, E, R>, options?: ForkOptions) =>
  Effect.forkChild(self, options)
export const forkDetach = <A, E, R>(self: Effect.Effect<A, E, R>, options?: ForkOptions) =>
  Effect.forkDetach(self, options)
/** Runs `self`, then waits, interruptibly, for the fibers it forked that still run. */
export const awaitingForks = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.interruptible(Effect.awaitAllChildren(self))
/** What a root fiber keeps of the current fiber's context, where Effect 4 keeps services and fiber-local values. */
const rootContext = Context.pick(
  Clock.Clock,
  Random.Random,
  Scheduler.Scheduler,
  Scheduler.MaxOpsBeforeYield,
  Tracer.Tracer,
  Tracer.MinimumTraceLevel,
  References.TracerEnabled,
  References.TracerTimingEnabled,
  Logger.CurrentLoggers,
  Logger.LogToStderr,
  References.MinimumLogLevel,
  References.CurrentLogAnnotations,
  Metric.MetricRegistry,
  Metric.CurrentMetricAttributes
)
export const forkRoot = (self: Effect.Effect<void>, onEnd: () => Effect.Effect<void> | undefined) =>
  Effect.withFiber((current) => {
    const context = rootContext(current.context)
    const fiber: Fiber<void> = Effect.runForkWith(context)(self)
    fiber.addObserver(() => {
      const ending = onEnd()
      if (ending !== undefined) Effect.runForkWith(context)(ending)
    })
    return Effect.succeed(fiber)
  })
/** Effect 4's own `ensuring`, `onError` and `onInterrupt` are one primitive each, with no mask to set and take off. */
export const ensuringMasked = <A, E, R, R2>(self: Effect.Effect<A, E, R>, finalizer: Effect.Effect<void, never, R2>) =>
  Effect.ensuring(self, finalizer)
export const onErrorMasked = <A, E, R, R2>(self: Effect.Effect<A, E, R>, cleanup: Effect.Effect<void, never, R2>) =>
  Effect.onError(self, () => cleanup)
export const onInterruptMasked = <A, E, R, R2>(
  self: Effect.Effect<A, E, R>,
  cleanup: Effect.Effect<void, never, R2>
) => Effect.onInterrupt(self, () => cleanup)
export const deferredMakeUnsafe = <A, E = never>() => Deferred.makeUnsafe<A, E>()
export const deferredDoneUnsafe: <A, E>(self: Deferred.Deferred<A, E>, effect: Effect.Effect<A, E>) => unknown =
  Deferred.doneUnsafe
export const hasInterrupts = Cause.hasInterrupts
export const hasInterruptsOnly = Cause.hasInterruptsOnly
export const failures = <E>(cause: Cause.Cause<E>): ReadonlyArray<E> =>
  cause.reasons.filter(Cause.isFailReason).map((reason) => reason.error)
export const TimeoutError = Cause.TimeoutError
export type TimeoutError = Cause.TimeoutError
export const isTimeoutError = Cause.isTimeoutError
export const dieMessage = (message: string): Effect.Effect<never> => Effect.die(message)
export const withClock = <A, E, R>(self: Effect.Effect<A, E, R>, clock: Clock.Clock) =>
  Effect.provideService(self, Clock.Clock, clock)
export const monotonicTimeNanosUnsafe = (clock: Clock.Clock): bigint => clock.monotonicTimeNanosUnsafe()
export const callback = <A>(register: (resume: (effect: Effect.Effect<A>) => void) => void | Effect.Effect<void>) =>
  Effect.callback<A>((resume) => register(resume))
/** A span without a stack trace: capturing one per renew or release would cost more than the call. */
export const withSpan = (name: string, options: { attributes: Record<string, unknown>; parent?: Tracer.AnySpan }) =>
  Effect.withSpan(name, options, { captureStackTrace: false })
export const exponentialHistogram = (name: string, description: string, boundaries: Boundaries) =>
  Metric.histogram(name, { description, boundaries: Metric.exponentialBoundaries(boundaries) })
type Boundaries = Parameters<typeof Metric.exponentialBoundaries>[0]
export const withAttributes = <In, State>(metric: Metric.Metric<In, State>, attributes: Record<string, string>) =>
  Metric.withAttributes(metric, attributes)
export const changes: <A>(ref: SubscriptionRef.SubscriptionRef<A>) => Stream.Stream<A> = SubscriptionRef.changes
export const unwrapScoped = Stream.unwrap
export const fromEffectRepeat = Stream.fromEffectRepeat
export const toResult = <A>(checked: Checked.Checked<A>): Result<A, string> =>
  checked._tag === "Ok" ? Results.succeed(checked.value) : Results.fail(checked.message)
/** Effect 4 reads its `{ seconds: 30 }` form too, and keeps a negative `Duration`'s sign: only a NaN one is zero. */
export const durationFromInput = (input: unknown) => Duration.fromInput(input as Duration.Input)
export const zeroDurationProblem: string = ambiguousNaNZero
export const nonEmptyString = Schema.NonEmptyString
export const nonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
export const intBetween = (minimum: number, maximum: number) => Schema.Int.check(Schema.isBetween({ minimum, maximum }))
export const withIdentifier = <A, I>(schema: Codec<A, I>, identifier: string) => schema.annotate({ identifier })
export const fromJsonString = <A, I, R>(schema: Codec<A, I, R>): Codec<A, string, R> => Schema.fromJsonString(schema)
/** Any schema's value as JSON: on Effect 4 the JSON of its JSON codec. */
export const jsonCodec = <A, I, R>(schema: Codec<A, I, R>): Codec<A, string, R> =>
  Schema.fromJsonString(Schema.toCodecJson(schema))
export const encodeEffect = <A, I, R>(schema: Codec<A, I, R>) => Schema.encodeEffect(schema)
export const decodeUnknownEffect = <A, I, R>(schema: Codec<A, I, R>) => Schema.decodeUnknownEffect(schema)
export const configString = (key: string): Config.Config<string> => Config.String(key)
export const configLiterals = <const L extends ReadonlyArray<string>>(literals: L, key: string) =>
  Config.Literals(literals, key)
/** A layer of a scoped effect: its resource lives as long as the layer. */
export const layerScoped = Layer.effect
export const unwrapLayer = Layer.unwrap
export const Service = <I>(key: string): Service<I, I> => Context.Service<I>(key)
/** A `Context.Reference` class: on Effect 4 `Self` is no identifier. */
export const Reference =
  <_Self>() => <const Id extends string, A>(id: Id, options: { readonly defaultValue: () => A }) =>
    Context.Reference<A>(id, options)
