/**
 * What the lock's shell does differently on Effect 3 and Effect 4, by Effect 4's names: renamed APIs and types, and
 * the mechanisms that differ (who takes a wrapped acquire's lease over, what a root fiber keeps), so that every other
 * module is written once. This is Effect 3's; `effectLine.effect4.ts` is Effect 4's, with the same names and types.
 *
 * @internal
 */
import type * as Checked from "@leasehold/core/Checked"
import { ambiguousZero } from "@leasehold/core/options/DurationInput"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Config from "effect/Config"
import type * as ConfigErrors from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fibers from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import type * as ParseResult from "effect/ParseResult"
import * as Runtime from "effect/Runtime"
import * as RuntimeFlags from "effect/RuntimeFlags"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type * as SubscriptionRef from "effect/SubscriptionRef"
import type * as Tracer from "effect/Tracer"
import * as HeldLeases from "./process/heldLeases.js"
import type { EndWatch, Entry } from "./process/heldList.js"

export type DurationInput = Duration.DurationInput
export type Fiber<A, E = never> = Fibers.RuntimeFiber<A, E>
type AnyFiber = Fiber<unknown, unknown>
export type Result<A, E> = Either.Either<A, E>
export type Codec<A, I = A, R = never> = Schema.Schema<A, I, R>
export type SchemaError = ParseResult.ParseError
export type ConfigError = ConfigErrors.ConfigError
export type Service<I, S> = Context.Tag<I, S>
/** What a layer of a `Reference` provides: on Effect 3 a reference is a tag, whose class is its identifier. */
export type ReferenceLayer<Self, E = never> = Layer.Layer<Self, E>
export type Success<T extends Effect.Effect<unknown, unknown, unknown>> = Effect.Effect.Success<T>
export type Error<T extends Effect.Effect<unknown, unknown, unknown>> = Effect.Effect.Error<T>
export type Services<T extends Effect.Effect<unknown, unknown, unknown>> = Effect.Effect.Context<T>
/** No region guard: the join hook of `heldLeases.ts` hands a wrapped acquire's lease to the fiber that goes on. */
export const scoped = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.scoped(self)
export const watchEnd: Effect.Effect<EndWatch> = Effect.succeed({ held: () => Effect.void, stop: () => {} })
export const settled = (_store: object, _name: string): Effect.Effect<Entry | undefined> => Effect.succeed(undefined)
export const withFiber = <A, E = never, R = never>(f: (fiber: AnyFiber) => Effect.Effect<A, E, R>) =>
  Effect.withFiberRuntime<A, E, R>((fiber) => f(fiber as AnyFiber))
export const interruptUnsafe = (fiber: AnyFiber, by: AnyFiber): void => fiber.unsafeInterruptAsFork(by.id())
/** Interrupts without waiting: on Effect 3 from a fiber forked to do it. */
export const interruptFork: (fiber: AnyFiber) => Effect.Effect<void> = Fibers.interruptFork
/** Effect 3 has no options: a fork starts as it always does. */
export type ForkOptions = { readonly startImmediately?: boolean }
export const forkChild = <A, E, R>(self: Effect.Effect<A, E, R>, _options?: ForkOptions) => Effect.fork(self)
export const forkDetach = <A, E, R>(self: Effect.Effect<A, E, R>, _options?: ForkOptions) => Effect.forkDaemon(self)
/** Runs `self`, then waits, interruptibly, for the fibers the current fiber forked that still run. */
export const awaitingForks = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.interruptible(
    Effect.tap(self, () =>
      Effect.flatMap(Effect.withFiberRuntime<ReadonlyArray<AnyFiber>>(Fibers.children), Fibers.awaitAll))
  )
/** A fiber of its own, interruptible, with the current fiber's fiber-local values, but not its context or leases. */
export const forkRoot = (self: Effect.Effect<void>, onEnd: () => Effect.Effect<void> | undefined) =>
  Effect.map(Effect.runtime<never>(), (current): Fiber<void> => {
    const fiberRefs = HeldLeases.forget(FiberRefs.delete(current.fiberRefs, FiberRef.currentContext))
    const runtimeFlags = RuntimeFlags.enable(current.runtimeFlags, RuntimeFlags.Interruption)
    const fiber = Runtime.runFork(Runtime.make({ context: Context.empty(), fiberRefs, runtimeFlags }))(self)
    fiber.addObserver(() => {
      const ending = onEnd()
      if (ending === undefined) return
      const fiberRefs = fiber.getFiberRefs()
      Runtime.runFork(Runtime.make({ context: Context.empty(), fiberRefs, runtimeFlags: RuntimeFlags.none }))(ending)
    })
    return fiber
  })
/** Fails with `first`, or with both causes if `cleanup` failed too, as Effect's own combinators do. */
const failAfter = <E, R2>(cleanup: Effect.Effect<void, never, R2>, first: Cause.Cause<E>) =>
  Effect.matchCauseEffect(cleanup, {
    onFailure: (second) => Effect.failCause(Cause.sequential(first, second)),
    onSuccess: () => Effect.failCause(first)
  })
/**
 * `Effect.ensuring`, `onError` and `onInterrupt` for code that already runs uninterruptibly (an acquire, or a section
 * between its acquire and its release): nothing can interrupt it between the end of `self` and what follows. Effect 3's
 * own set a mask around the two and take it off again, an operation each way on every acquire; `self` is still
 * interruptible wherever the caller restored the mask inside it.
 */
export const ensuringMasked = <A, E, R, R2>(self: Effect.Effect<A, E, R>, finalizer: Effect.Effect<void, never, R2>) =>
  Effect.matchCauseEffect(self, {
    onFailure: (cause) => failAfter(finalizer, cause),
    onSuccess: (value) => Effect.as(finalizer, value)
  })
export const onErrorMasked = <A, E, R, R2>(self: Effect.Effect<A, E, R>, cleanup: Effect.Effect<void, never, R2>) =>
  Effect.matchCauseEffect(self, { onFailure: (cause) => failAfter(cleanup, cause), onSuccess: Effect.succeed })
export const onInterruptMasked = <A, E, R, R2>(
  self: Effect.Effect<A, E, R>,
  cleanup: Effect.Effect<void, never, R2>
) =>
  Effect.matchCauseEffect(self, {
    onFailure: (cause) => Cause.isInterrupted(cause) ? failAfter(cleanup, cause) : Effect.failCause(cause),
    onSuccess: Effect.succeed
  })
export const deferredMakeUnsafe = <A, E = never>() => Deferred.unsafeMake<A, E>(FiberId.none)
export const deferredDoneUnsafe: <A, E>(self: Deferred.Deferred<A, E>, effect: Effect.Effect<A, E>) => unknown =
  Deferred.unsafeDone
export const hasInterrupts = Cause.isInterrupted
export const hasInterruptsOnly = Cause.isInterruptedOnly
export const failures = <E>(cause: Cause.Cause<E>): ReadonlyArray<E> => Array.from(Cause.failures(cause))
export const TimeoutError = Cause.TimeoutException
export type TimeoutError = Cause.TimeoutException
export const isTimeoutError = Cause.isTimeoutException
export const dieMessage = Effect.dieMessage
export const withClock = <A, E, R>(self: Effect.Effect<A, E, R>, clock: Clock.Clock) => Effect.withClock(self, clock)
export const monotonicTimeNanosUnsafe = (clock: Clock.Clock): bigint => clock.unsafeCurrentTimeNanos()
export const callback = <A>(register: (resume: (effect: Effect.Effect<A>) => void) => void | Effect.Effect<void>) =>
  Effect.async<A>((resume) => register(resume))
/** A span without a stack trace: capturing one per renew or release would cost more than the call. */
export const withSpan = (name: string, options: { attributes: Record<string, unknown>; parent?: Tracer.AnySpan }) =>
  Effect.withSpan(name, { ...options, captureStackTrace: false })
export const exponentialHistogram = (name: string, description: string, boundaries: Boundaries) =>
  Metric.histogram(name, MetricBoundaries.exponential(boundaries), description)
type Boundaries = Parameters<typeof MetricBoundaries.exponential>[0]
export const withAttributes = <T, In, Out>(metric: Metric.Metric<T, In, Out>, attributes: Record<string, string>) =>
  Object.entries(attributes).reduce((tagged, [key, value]) => Metric.tagged(tagged, key, value), metric)
export const changes = <A>(ref: SubscriptionRef.SubscriptionRef<A>): Stream.Stream<A> => ref.changes
export const unwrapScoped = Stream.unwrapScoped
export const fromEffectRepeat = Stream.repeatEffect
export const toResult = <A>(checked: Checked.Checked<A>): Result<A, string> =>
  checked._tag === "Ok" ? Either.right(checked.value) : Either.left(checked.message)
/** Effect 3 reads no object as a duration, and makes a negative `Duration` zero, as it does a NaN one. */
export const durationFromInput = Duration.decodeUnknown
export const zeroDurationProblem: string = ambiguousZero
export const nonEmptyString = Schema.String.pipe(Schema.minLength(1))
export const nonNegativeInt = Schema.NonNegativeInt
export const intBetween = (minimum: number, maximum: number) => Schema.Int.pipe(Schema.between(minimum, maximum))
export const withIdentifier = <A, I>(schema: Codec<A, I>, identifier: string) => schema.annotations({ identifier })
export const fromJsonString = <A, I, R>(schema: Codec<A, I, R>): Codec<A, string, R> => Schema.parseJson(schema)
/** Any schema's value as JSON: on Effect 3 the JSON of its encoded form. */
export const jsonCodec = fromJsonString
export const encodeEffect = <A, I, R>(schema: Codec<A, I, R>) => Schema.encode(schema)
export const decodeUnknownEffect = <A, I, R>(schema: Codec<A, I, R>) => Schema.decodeUnknown(schema)
export const configString = (key: string): Config.Config<string> => Config.string(key)
export const configLiterals = <const L extends ReadonlyArray<string>>(literals: L, key: string) =>
  Config.literal(...literals)(key)
/** A layer of a scoped effect: its resource lives as long as the layer. */
export const layerScoped = Layer.scoped
export const unwrapLayer = Layer.unwrapEffect
export const Service = <I>(key: string): Service<I, I> => Context.GenericTag<I>(key)
/** A `Context.Reference` class: on Effect 3 `Self` is its identifier. */
export const Reference =
  <Self>() => <const Id extends string, A>(id: Id, options: { readonly defaultValue: () => A }) =>
    Context.Reference<Self>()(id, options)
