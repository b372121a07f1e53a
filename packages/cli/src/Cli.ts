/**
 * The `leasehold` command tree and its entry point: parse the arguments, run the command, map the outcome to an
 * exit code (see `ExitCode`).
 *
 * @since 0.1.0
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
 * @since 0.1.0
 * @category constants
 */
export const version = "0.1.0"

/**
 * The root command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make(
  "leasehold",
  {},
  () =>
    CliError.usage("name a command: table create, table check, list, inspect, release, watch (see leasehold --help)")
).pipe(
  Command.withDescription(Help.describe(
    "Operate Leasehold lock tables on DynamoDB: create and check the table, list, inspect and watch locks and " +
      "semaphores, force-release a stuck lock or a dead holder's permits. Every command takes --table, --region, " +
      "--endpoint, --prefix and --local.",
    [
      ["leasehold table create --table locks --region eu-west-1", "create the table"],
      ["leasehold list --table locks", "the locks and semaphores, and their holders"],
      ["leasehold watch --local", "try it out against an embedded server"]
    ]
  )),
  Command.withSubcommands([
    TableCommand.command,
    ListCommand.command,
    InspectCommand.command,
    ReleaseCommand.command,
    WatchCommand.command
  ])
)

const cli = Command.run(command, { name: "leasehold", version, footer: Help.exitCodes })

const report = (message: string) => message === "" ? Effect.void : Console.error(`leasehold: ${message}`)

/** Logs (e.g. a store retrying) go to stderr, warnings and worse only: stdout is for results and `--json`. */
const stderrLogger = Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))

/**
 * Runs the CLI on `argv` (as `process.argv`: node, script, then arguments) and returns the exit code. Never fails:
 * every error has been printed by then, user errors as one line without a stack trace. Output is styled only where
 * colour is on: on a terminal, unless `NO_COLOR` is set; `FORCE_COLOR` decides when set.
 *
 * @example
 * ```ts
 * import * as NodeContext from "@effect/platform-node/NodeContext"
 * import { Cli } from "@leasehold/cli"
 * import { Console, Effect } from "effect"
 *
 * // `leasehold list --local`, from a program: the embedded server starts with an empty lock table.
 * const program = Cli.main(["node", "leasehold", "list", "--local"]).pipe(
 *   Effect.tap((exitCode) => Console.log(`exit code ${exitCode}`)),
 *   Effect.provide(NodeContext.layer)
 * )
 *
 * Effect.runPromise(program)
 * // Output:
 * // no locks or semaphores in table "leasehold-locks"
 * // exit code 0
 * ```
 *
 * @since 0.1.0
 * @category running
 */
export const main = (argv: ReadonlyArray<string>): Effect.Effect<number, never, CliApp.CliApp.Environment> =>
  cli(argv).pipe(
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
