/**
 * Effect 3's side of what the DynamoDB tests and their programs take from Effect where the majors differ (Effect 4's
 * side is `effectLine.effect4.ts`): test services, logging, config, schema constructors and child processes.
 */
import { Command, type CommandExecutor } from "@effect/platform"
import { ConfigProvider, Effect, Fiber, Logger, LogLevel, Option, Random, Schema, type SubscriptionRef } from "effect"

export { FileSystem } from "@effect/platform"
export { layer as nodeServices } from "@effect/platform-node/NodeContext"
export { TestClock } from "effect"
export { failureOption as findErrorOption, isInterruptedOnly as hasInterruptsOnly } from "effect/Cause"
export { GenericTag as Service } from "effect/Context"
export { catchAllDefect as catchDefect, fork as forkChild, forkDaemon as forkDetach } from "effect/Effect"
export { logfmtLogger as formatLogFmt, withMinimumLogLevel } from "effect/Logger"
export { parseJson as fromJsonString } from "effect/Schema"

type Members = readonly [Schema.Schema.All, Schema.Schema.All, ...Array<Schema.Schema.All>]
export const Union = <const M extends Members>(members: M) => Schema.Union(...members)
export const logLevels = { Warn: LogLevel.Warning, Error: LogLevel.Error }
export const changes = <A>(ref: SubscriptionRef.SubscriptionRef<A>) => ref.changes
export const isDone = <A, E>(fiber: Fiber.Fiber<A, E>) => Effect.map(Fiber.poll(fiber), Option.isSome)
export const withRandomFixed = (value: number) => Effect.withRandom(Random.fixed([value]))
export const withConfig = (env: Record<string, string>) => Effect.withConfigProvider(ConfigProvider.fromJson(env))
export const withLogger = (logger: Logger.Logger<unknown, unknown>) =>
  Effect.provide(Logger.replace(Logger.defaultLogger, logger))
export const spawn = (file: string, args: ReadonlyArray<string>, env: Record<string, string>) =>
  Command.start(Command.env(Command.make(file, ...args), env))
/** `NodeRuntime.runMain`'s exit code for a program that SIGINT or SIGTERM interrupted: an interruption is no failure. */
export const signalExitCode = 0
export const sigkill = (child: CommandExecutor.Process) => child.kill("SIGKILL")

/** Which Effect major this line is: what an earlier version's sources are assembled for. */
export const effectMajor: 3 | 4 = 3
