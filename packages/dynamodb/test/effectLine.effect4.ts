/**
 * Effect 4's side of what the DynamoDB tests and their programs take from Effect where the majors differ (Effect 3's
 * side is `effectLine.ts`): test services, logging, config, schema constructors and child processes.
 */
import { ConfigProvider, Effect, type Fiber, Logger, Random, References } from "effect"
import { ChildProcess, type ChildProcessSpawner } from "effect/process"

export { layer as nodeServices } from "@effect/platform-node/NodeServices"
export { FileSystem } from "effect"
export { findErrorOption, hasInterruptsOnly } from "effect/Cause"
export { Service } from "effect/Context"
export { catchDefect, forkChild, forkDetach } from "effect/Effect"
export { formatLogFmt } from "effect/Logger"
export { fromJsonString, Union } from "effect/Schema"
export { changes } from "effect/SubscriptionRef"
export { TestClock } from "effect/testing"

export const logLevels = { Warn: "Warn", Error: "Error" } as const
export const withMinimumLogLevel = Effect.provideService(References.MinimumLogLevel)
export const isDone = <A, E>(fiber: Fiber.Fiber<A, E>) => Effect.sync(() => fiber.pollUnsafe() !== undefined)
export const withRandomFixed = (value: number) =>
  Effect.provideService(Random.Random, { nextDoubleUnsafe: () => value, nextIntUnsafe: () => Math.floor(value) })
export const withConfig = (env: Record<string, string>) =>
  Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord(env))
export const withLogger = (logger: Logger.Logger<unknown, unknown>) => Effect.provide(Logger.layer([logger]))
export const spawn = (file: string, args: ReadonlyArray<string>, env: Record<string, string>) =>
  ChildProcess.make(file, args, { env, extendEnv: true })
/** `NodeRuntime.runMain`'s exit code for a program that SIGINT or SIGTERM interrupted (as a shell's after Ctrl-C). */
export const signalExitCode = 130
export const sigkill = (child: ChildProcessSpawner.ChildProcessHandle) => child.kill({ killSignal: "SIGKILL" })

/** Which Effect major this line is: what an earlier version's sources are assembled for. */
export const effectMajor: 3 | 4 = 4
