/**
 * Effect 3's side of what the test kit takes from Effect where the majors differ (Effect 4's is in
 * `effectLine.effect4.ts`): names and types; clocks, whose one reading in nanoseconds is the monotonic one; a
 * scheduler's turn; a child program's logs; child processes, whose stop `@effect/platform` never escalates to SIGKILL.
 */
import * as Command from "@effect/platform/Command"
import type * as ProcessClock from "@leasehold/core/simulation/ProcessClock"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Random from "effect/Random"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
export { layer as layerNodeSpawner } from "@effect/platform-node/NodeCommandExecutor"
export { failureOption as findErrorOption, isDie as hasDies, isInterrupted as hasInterrupts } from "effect/Cause"
export { isInterruptedOnly as hasInterruptsOnly } from "effect/Cause"
export { string as configString } from "effect/Config"
export type { ConfigError } from "effect/ConfigError"
export { decode as fromInputUnsafe } from "effect/Duration"
export { async as callback, catchAll as catch, dieMessage, withClock } from "effect/Effect"
export { scoped as layerScoped } from "effect/Layer"
export { upTo as upToDuration } from "effect/Schedule"
export * as TestClock from "effect/TestClock"
export type DurationInput = Duration.DurationInput
export type Codec<A, I = A> = Schema.Schema<A, I>
export const Service = <Self, Shape>() => <const Id extends string>(id: Id) => Context.Tag(id)<Self, Shape>()
/** Effect 4 can start a fork at once, up to its first wait; Effect 3 has no such option. */
export const forkChild = <A, E, R>(self: Effect.Effect<A, E, R>, _options?: object) => Effect.fork(self)
export const forkDetach = <A, E, R>(self: Effect.Effect<A, E, R>, _options?: object) => Effect.forkDaemon(self)
export const withSeed = (seed: string | number) => Effect.withRandom(Random.make(seed))
export const withoutLogs = Logger.withMinimumLogLevel(LogLevel.None)
export const syncRunner = Effect.map(Effect.runtime<never>(), (runtime) => Runtime.runSync(runtime))
export const optionalKey = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })
export const decodeJson = <A, I>(schema: Codec<A, I>) => Schema.decode(Schema.parseJson(schema))
export const runMainReportsFailure = true
export const logToStderr = Effect.provide(
  Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))
)
export const liveClock: Clock.Clock = Clock.make()
export const currentTimeMillisUnsafe = (clock: Clock.Clock): number => clock.unsafeCurrentTimeMillis()
export const currentTimeNanosUnsafe = (clock: Clock.Clock): bigint => clock.unsafeCurrentTimeNanos()
export const monotonicTimeNanosUnsafe = (clock: Clock.Clock): bigint => clock.unsafeCurrentTimeNanos()
export const makeClock = (readings: ProcessClock.Readings, sleep: Clock.Clock["sleep"]): Clock.Clock => ({
  [Clock.ClockTypeId]: Clock.ClockTypeId,
  unsafeCurrentTimeMillis: readings.wallMillis,
  currentTimeMillis: Effect.sync(readings.wallMillis),
  unsafeCurrentTimeNanos: readings.monotonicNanos,
  currentTimeNanos: Effect.sync(readings.monotonicNanos),
  sleep
})
export const shouldYield = (fiber: Fiber.RuntimeFiber<unknown, unknown>): number | false =>
  fiber.currentOpCount > fiber.getFiberRef(FiberRef.currentMaxOpsBeforeYield)
    ? fiber.getFiberRef(FiberRef.currentSchedulingPriority)
    : false
/** The executor stops a process with SIGTERM when the scope closes, and waits: a finalizer run first sends SIGKILL. */
export const spawn = (command: string, args: ReadonlyArray<string>, cwd?: string, killAfter?: DurationInput) => {
  const started = Command.start(Command.workingDirectory(Command.make(command, ...args), cwd ?? process.cwd()))
  if (killAfter === undefined) return started
  return Effect.tap(started, (child) =>
    Effect.addFinalizer(() =>
      Effect.timeout(child.kill("SIGTERM"), killAfter).pipe(
        Effect.catchAll(() => child.kill("SIGKILL")),
        Effect.ignore,
        Effect.withClock(liveClock)
      )
    ))
}
