/**
 * Help text for commands: a description, then examples, then (on the root) the exit codes.
 *
 * @since 1.0.0
 */
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Arr from "effect/Array"
import * as ExitCode from "./ExitCode.js"

/**
 * A command's description followed by an EXAMPLES section.
 *
 * @since 1.0.0
 * @category constructors
 */
export const describe = (
  description: string,
  examples: ReadonlyArray<readonly [command: string, what: string]>
): HelpDoc.HelpDoc =>
  HelpDoc.blocks([
    HelpDoc.p(description),
    ...(Arr.isNonEmptyReadonlyArray(examples)
      ? [
        HelpDoc.h2("EXAMPLES"),
        HelpDoc.descriptionList(
          Arr.map(examples, ([command, what]) => [HelpDoc.getSpan(HelpDoc.p(command)), HelpDoc.p(what)])
        )
      ]
      : [])
  ])

/**
 * The exit codes, for the root command's help footer.
 *
 * @since 1.0.0
 * @category constants
 */
export const exitCodes: HelpDoc.HelpDoc = HelpDoc.blocks([
  HelpDoc.h2("EXIT CODES"),
  HelpDoc.descriptionList(
    Arr.map(ExitCode.table, ([code, meaning]) => [HelpDoc.getSpan(HelpDoc.p(String(code))), HelpDoc.p(meaning)])
  ),
  HelpDoc.h2("ENVIRONMENT"),
  HelpDoc.p(
    "LEASEHOLD_TABLE (--table), AWS_REGION or AWS_DEFAULT_REGION (--region), DYNAMODB_ENDPOINT (--endpoint), " +
      "LEASEHOLD_PREFIX (--prefix). Flags win over the environment. Credentials come from the AWS SDK's default chain."
  )
])

/**
 * Lines of two columns, the first padded to the longest, the second not: no line ends in spaces.
 */
const twoColumns = (rows: ReadonlyArray<readonly [string, string]>): string => {
  const width = Math.max(0, ...rows.map(([first]) => first.length))
  return rows.map(([first, second]) => `  ${first.padEnd(width)}  ${second}`).join("\n")
}

/**
 * The root command's help: name and version, usage, description, every command with what it does in one line, the
 * flags of the root, examples, then the exit codes and environment. No line ends in spaces, and the text ends with
 * the last line.
 *
 * @since 1.0.0
 * @category constructors
 */
export const root = (options: {
  readonly name: string
  readonly version: string
  readonly description: string
  readonly commands: ReadonlyArray<readonly [command: string, summary: string]>
  readonly examples: ReadonlyArray<readonly [command: string, what: string]>
}): string =>
  HelpDoc.toAnsiText(HelpDoc.blocks([
    HelpDoc.h1(HelpDoc.getSpan(HelpDoc.p(`${options.name} ${options.version}`))),
    HelpDoc.p(options.description),
    HelpDoc.h1("USAGE"),
    HelpDoc.p(`  $ ${options.name} <command> [flags]`),
    HelpDoc.h1("COMMANDS"),
    HelpDoc.p(twoColumns(options.commands)),
    HelpDoc.h1("OPTIONS"),
    HelpDoc.p(twoColumns([
      ["-h, --help", `this help; \`${options.name} <command> --help\` shows a command's flags and examples`],
      ["--version", "the version"]
    ])),
    HelpDoc.h1("EXAMPLES"),
    HelpDoc.p(twoColumns(options.examples)),
    exitCodes
  ])).split("\n").map((line) => line.trimEnd()).join("\n").trimEnd()
