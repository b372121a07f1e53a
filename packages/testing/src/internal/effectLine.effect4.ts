/**
 * Effect 4's side of what the test kit takes from Effect where the majors differ (Effect 3's is in `effectLine.ts`):
 * names and types; clocks, with wall and monotonic readings in nanoseconds; a scheduler's turn; a child program's
 * logs; child processes (`effect/process`).
 */
import type * as ProcessClock from "@leasehold/core/simulation/ProcessClock"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import * as ChildProcess from "effect/process/ChildProcess"
import * as References from "effect/References"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
export { layer as layerNodeSpawner } from "@effect/platform-node/NodeChildProcessSpawner"
export { findErrorOption, hasDies, hasInterrupts, hasInterruptsOnly } from "effect/Cause"
export { String as configString } from "effect/Config"
export type { ConfigError } from "effect/Config"
export { Service } from "effect/Context"
export { fromInputUnsafe } from "effect/Duration"
export { callback, catch, forkChild, forkDetach } from "effect/Effect"
export { effect as layerScoped } from "effect/Layer"
export { withSeed } from "effect/Random"
export { optionalKey } from "effect/Schema"
export * as TestClock from "effect/testing/TestClock"
export type DurationInput = Duration.Input
export type Codec<A, I = A> = Schema.Codec<A, I>
export const dieMessage = (message: string) => Effect.die(new Error(message))
export const withClock = (clock: Clock.Clock) => Effect.provideService(Clock.Clock, clock)
export const upToDuration = (duration: Duration.Duration) => Schedule.upTo({ duration })
export const withoutLogs = Effect.provideService(References.MinimumLogLevel, "None")
export const syncRunner = Effect.map(Effect.context<never>(), Effect.runSyncWith)
export const decodeJson = <A, I>(schema: Codec<A, I>) => Schema.decodeUnknownEffect(Schema.fromJsonString(schema))
/** runMain's report of a failure would not go through the program's logger: the program makes it. */
export const runMainReportsFailure = false
export const logToStderr = <A, E>(program: Effect.Effect<A, E>) =>
  Effect.provide(Effect.tapCause(program, reportFailure), Logger.layer([Logger.withConsoleError(Logger.formatLogFmt)]))
const reportFailure = (cause: Cause.Cause<unknown>) =>
  Cause.hasInterruptsOnly(cause) ? Effect.void : Effect.logError(cause)
export const liveClock: Clock.Clock = Clock.Clock.defaultValue()
export const currentTimeMillisUnsafe = (clock: Clock.Clock): number => clock.currentTimeMillisUnsafe()
export const currentTimeNanosUnsafe = (clock: Clock.Clock): bigint => clock.currentTimeNanosUnsafe()
export const monotonicTimeNanosUnsafe = (clock: Clock.Clock): bigint => clock.monotonicTimeNanosUnsafe()
export const makeClock = (readings: ProcessClock.Readings, sleep: Clock.Clock["sleep"]): Clock.Clock => ({
  currentTimeMillisUnsafe: readings.wallMillis,
  currentTimeMillis: Effect.sync(readings.wallMillis),
  currentTimeNanosUnsafe: readings.wallNanos,
  currentTimeNanos: Effect.sync(readings.wallNanos),
  monotonicTimeNanosUnsafe: readings.monotonicNanos,
  monotonicTimeNanos: Effect.sync(readings.monotonicNanos),
  sleep
})
export const shouldYield = (fiber: Fiber.Fiber<unknown, unknown>): boolean =>
  fiber.currentOpCount >= fiber.cache.maxOpsBeforeYield
/** The spawner stops a process with SIGTERM when the scope closes, and sends SIGKILL after `killAfter`. */
export const spawn = (command: string, args: ReadonlyArray<string>, cwd?: string, killAfter?: DurationInput) =>
  ChildProcess.make(command, args, { cwd, forceKillAfter: killAfter })
