/**
 * The `leasehold` command tree and its entry point: parse the arguments, run the command, map the outcome to an
 * exit code (see `ExitCode`).
 *
 * @since 1.0.0
 */
import * as CliApp from "@effect/cli/CliApp"
import * as Command from "@effect/cli/Command"
import * as ValidationError from "@effect/cli/ValidationError"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as CliError from "./CliError.js"
import * as ExitCode from "./ExitCode.js"
import * as Help from "./Help.js"
import * as InspectCommand from "./InspectCommand.js"
import * as Color from "./internal/color.js"
import * as ListCommand from "./ListCommand.js"
import * as ReleaseCommand from "./ReleaseCommand.js"
import * as TableCommand from "./TableCommand.js"
import * as WatchCommand from "./WatchCommand.js"

/**
 * @since 1.0.0
 * @category constants
 */
export const version = "1.0.0"

const rootDescription = "Operate Leasehold lock tables on DynamoDB: create and check the table, list, inspect and " +
  "watch locks and semaphores, force-release a stuck lock or a dead holder's permits. Every command takes --table, " +
  "--region, --endpoint, --prefix and --local."

const rootExamples: ReadonlyArray<readonly [string, string]> = [
  ["leasehold table create --table locks --region eu-west-1", "create the table"],
  ["leasehold list --table locks", "the locks and semaphores, and their holders"],
  ["leasehold watch --local", "try it out against an embedded server"]
]

/**
 * The root command.
 *
 * @since 1.0.0
 * @category commands
 */
export const command = Command.make(
  "leasehold",
  {},
  () =>
    CliError.usage("name a command: table create, table check, list, inspect, release, watch (see leasehold --help)")
).pipe(
  Command.withDescription(Help.describe(rootDescription, rootExamples)),
  Command.withSubcommands([
    TableCommand.command,
    ListCommand.command,
    InspectCommand.command,
    ReleaseCommand.command,
    WatchCommand.command
  ])
)

/**
 * Every command, with what it does in one line: the root help's list.
 *
 * @since 1.0.0
 * @category constants
 */
export const summaries: ReadonlyArray<readonly [command: string, summary: string]> = [
  ["table create", "Create the lock table (on-demand billing, TTL on \"ttl\"); a no-op if it is right."],
  ["table check", "Check the lock table: each problem on a line of its own, exit 1 if there is any."],
  ["list", "List the locks and semaphores of a family, with their holders."],
  ["inspect", "Show one lock or semaphore in full."],
  ["release", "Force-release a stuck lock, or a dead holder's permits of a semaphore."],
  ["watch", "Watch the locks and semaphores live, with their changes."]
]

const cli = Command.run(command, { name: "leasehold", version, footer: Help.exitCodes })

/**
 * The root's help, in the form @effect/cli gives every command, but with the commands listed one per line with what
 * they do: the library lists each command's full usage, padded to the longest, and no description where a command
 * has examples.
 */
const rootHelp = Help.root({
  name: "leasehold",
  version,
  description: rootDescription,
  commands: summaries,
  examples: rootExamples
})

/** `leasehold --version` and `leasehold --help`, which the CLI answers itself (see `rootHelp`). */
const builtIn = (args: ReadonlyArray<string>): string | undefined =>
  args.length !== 1 ? undefined : args[0] === "--version" ? version : args[0] === "--help" || args[0] === "-h"
    ? rootHelp
    : undefined

const report = (message: string) => message === "" ? Effect.void : Console.error(`leasehold: ${message}`)

/** Logs (e.g. a store retrying) go to stderr, warnings and worse only: stdout is for results and `--json`. */
const stderrLogger = Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))

/**
 * Runs the CLI on `argv` (as `process.argv`: node, script, then arguments) and returns the exit code. Never fails:
 * every error has been printed by then, user errors as one line without a stack trace. Output is styled only where
 * colour is on: on a terminal, unless `NO_COLOR` is set; `FORCE_COLOR` decides when set. `--version` and `--help`
 * alone are answered here; everything else goes to @effect/cli.
 *
 * @since 1.0.0
 * @category running
 */
export const main = (argv: ReadonlyArray<string>): Effect.Effect<number, never, CliApp.CliApp.Environment> =>
  Effect.suspend(() => {
    const answer = builtIn(argv.slice(2))
    return answer === undefined ? cli(argv) : Console.log(answer)
  }).pipe(
    Effect.as(ExitCode.ok),
    // @effect/cli has printed its own usage errors already.
    Effect.catchIf(ValidationError.isValidationError, () => Effect.succeed(ExitCode.usage)),
    Effect.catchAll((error: unknown) => {
      if (error instanceof CliError.CliError) return Effect.as(report(error.message), error.exitCode)
      const message = typeof error === "object" && error !== null && "message" in error
        ? String(error.message)
        : String(error)
      return Effect.as(report(message), ExitCode.storeProblem)
    }),
    Effect.catchAllDefect((defect) =>
      Effect.as(
        Console.error(`leasehold: internal error (please report it):\n${Cause.pretty(Cause.die(defect))}`),
        ExitCode.storeProblem
      )
    ),
    Effect.provide(stderrLogger),
    Logger.withMinimumLogLevel(LogLevel.Warning),
    // Help and usage errors come styled from @effect/cli; plain text where colour is off (a pipe, a file, NO_COLOR).
    Color.apply
  )
