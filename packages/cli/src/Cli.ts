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
import * as Connection from "./Connection.js"
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
  Command.withDescription(rootDescription),
  Command.withSubcommands([
    TableCommand.command,
    ListCommand.command,
    InspectCommand.command,
    ReleaseCommand.command,
    WatchCommand.command
  ])
)

/**
 * What each command's `--help` says, the parent `table` included.
 *
 * @since 1.0.0
 * @category constants
 */
export const helps: ReadonlyArray<Help.CommandHelp> = [
  TableCommand.help,
  TableCommand.createHelp,
  TableCommand.checkHelp,
  ListCommand.help,
  InspectCommand.help,
  ReleaseCommand.help,
  WatchCommand.help
]

/**
 * Every command, with what it does in one line: the root help's list.
 *
 * @since 1.0.0
 * @category constants
 */
export const summaries: ReadonlyArray<Help.Row> = helps.filter((help) => help.commands === undefined).map((help) => [
  help.path,
  help.summary
])

const cli = Command.run(command, { name: "leasehold", version })

/** The root's help, in the form of every command's (see `Help`). */
const rootHelp = Help.root({
  name: "leasehold",
  version,
  description: rootDescription,
  commands: summaries,
  examples: rootExamples
})

const isHelpFlag = (arg: string) => arg === "--help" || arg === "-h"

/**
 * The help `args` ask for, or undefined: `--help` (or `-h`) after a command's words shows that command's help, alone
 * it shows the root's. Arguments after an unknown command are left to @effect/cli, which says what it expected.
 *
 * @since 1.0.0
 * @category help
 */
export const helpFor = (args: ReadonlyArray<string>): string | undefined => {
  if (!args.some(isHelpFlag)) return undefined
  if (isHelpFlag(args[0] ?? "")) return rootHelp
  const matching = helps.filter((help) => help.path.split(" ").every((word, i) => args[i] === word))
  const help = matching.reduce<Help.CommandHelp | undefined>(
    (longest, help) => longest === undefined || help.path.length > longest.path.length ? help : longest,
    undefined
  )
  return help === undefined
    ? undefined
    : Help.command(help, { name: "leasehold", version, tableFlags: Connection.help })
}

/** `leasehold --version` and every `--help`, which the CLI answers itself (see `Help`). */
const builtIn = (args: ReadonlyArray<string>): string | undefined =>
  args.length === 1 && args[0] === "--version" ? version : helpFor(args)

const report = (message: string) => message === "" ? Effect.void : Console.error(`leasehold: ${message}`)

/** Logs (e.g. a store retrying) go to stderr, warnings and worse only: stdout is for results and `--json`. */
const stderrLogger = Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))

/**
 * Runs the CLI on `argv` (as `process.argv`: node, script, then arguments) and returns the exit code. Never fails:
 * every error has been printed by then, user errors as one line without a stack trace. Output is styled only where
 * colour is on: on a terminal, unless `NO_COLOR` is set; `FORCE_COLOR` decides when set. `--version` and every
 * `--help` are answered here; everything else goes to @effect/cli.
 *
 * @since 1.0.0
 * @category running
 */
export const main = (argv: ReadonlyArray<string>): Effect.Effect<number, never, CliApp.CliApp.Environment> =>
  Effect.suspend(() => {
    const args = argv.slice(2)
    const answer = builtIn(args)
    if (answer !== undefined) return Console.log(answer)
    // @effect/cli would answer `--help` after a word it does not know with the root's help in its own form.
    return args.some(isHelpFlag)
      ? CliError.usage(
        (args[0]?.startsWith("-") ? "name the command before its flags" : `no command "${args[0]}"`) +
          `: the commands are ${summaries.map(([command]) => command).join(", ")} (see leasehold --help)`
      )
      : cli(argv)
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
