/**
 * Help text for commands: what `leasehold --help` and `leasehold <command> --help` print. The CLI writes it itself
 * rather than leaving it to @effect/cli, whose help names a subcommand without the program (`$ release`), prints the
 * program's name twice, and puts a generic line ("A user-defined piece of text.") before every flag's own.
 *
 * @since 1.0.0
 */
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as ExitCode from "./ExitCode.js"

/**
 * Two columns of help: a flag, argument, command or example, and what it is.
 *
 * @since 1.0.0
 * @category models
 */
export type Row = readonly [left: string, right: string]

/**
 * What a command's `--help` says.
 *
 * @since 1.0.0
 * @category models
 */
export interface CommandHelp {
  /** The words after the program's name: "release", "table create". */
  readonly path: string
  /** What follows the path on the usage line: "NAME --force [flags]". */
  readonly usage: string
  /** What the command does, in one line: the root's list of commands shows it too. */
  readonly summary: string
  /** The whole story: what it does, what it prints, how it exits. */
  readonly description: string
  readonly arguments?: ReadonlyArray<Row> | undefined
  /** A parent's commands, with their summaries. */
  readonly commands?: ReadonlyArray<Row> | undefined
  /** The command's own flags. */
  readonly flags: ReadonlyArray<Row>
  /** Whether it takes the flags that find the table (`--table`, `--region`...): every command but a parent. */
  readonly tableFlags: boolean
  readonly examples: ReadonlyArray<Row>
}

/** Where help text breaks its lines: wide enough for a flag and its description, narrow enough to read. */
const width = 100

/** `text` in lines of at most `columns` characters, broken at spaces (a longer word stays whole). */
const wrap = (text: string, columns: number): ReadonlyArray<string> => {
  const lines: Array<string> = []
  let line = ""
  for (const word of text.split(/\s+/).filter((word) => word !== "")) {
    if (line !== "" && line.length + 1 + word.length > columns) {
      lines.push(line)
      line = word
    } else {
      line = line === "" ? word : `${line} ${word}`
    }
  }
  if (line !== "" || lines.length === 0) lines.push(line)
  return lines
}

/** A paragraph, indented by two and broken to the help's width. */
const paragraph = (text: string): string => wrap(text, width - 2).map((line) => `  ${line}`).join("\n")

/**
 * Lines of two columns, the first padded to the longest, the second broken to the help's width and continued under
 * itself: no line ends in spaces.
 */
const twoColumns = (rows: ReadonlyArray<Row>): string => {
  const first = Math.max(0, ...rows.map(([left]) => left.length))
  const indent = " ".repeat(2 + first + 2)
  const columns = Math.max(40, width - indent.length)
  return rows.map(([left, right]) =>
    wrap(right, columns).map((line, i) => i === 0 ? `  ${left.padEnd(first)}  ${line}` : `${indent}${line}`)
      .join("\n")
  ).join("\n")
}

/** Examples: each command on a line of its own, what it does under it. */
const examples = (rows: ReadonlyArray<Row>): string =>
  rows.map(([command, what]) => `  ${command}\n${wrap(what, width - 6).map((line) => `      ${line}`).join("\n")}`)
    .join("\n")

/** Help without trailing spaces, ending with its last line. */
const text = (blocks: ReadonlyArray<HelpDoc.HelpDoc>): string =>
  HelpDoc.toAnsiText(HelpDoc.blocks(blocks)).split("\n").map((line) => line.trimEnd()).join("\n").trimEnd()

const section = (title: string, body: string): ReadonlyArray<HelpDoc.HelpDoc> => [HelpDoc.h1(title), HelpDoc.p(body)]

/**
 * The exit codes and the environment, at the end of every help.
 *
 * @since 1.0.0
 * @category constants
 */
export const exitCodes: ReadonlyArray<HelpDoc.HelpDoc> = [
  ...section("EXIT CODES", twoColumns(ExitCode.table.map(([code, meaning]) => [String(code), meaning]))),
  ...section(
    "ENVIRONMENT",
    paragraph(
      "LEASEHOLD_TABLE (--table), AWS_REGION or AWS_DEFAULT_REGION (--region), DYNAMODB_ENDPOINT (--endpoint), " +
        "LEASEHOLD_PREFIX (--prefix). Flags win over the environment. Credentials come from the AWS SDK's default " +
        "chain: AWS_PROFILE (a profile of ~/.aws/config; after `aws sso login` for SSO), or AWS_ACCESS_KEY_ID and " +
        "AWS_SECRET_ACCESS_KEY (with AWS_SESSION_TOKEN for temporary keys), or the role of the machine it runs on."
    )
  )
]

/**
 * The flag every command takes besides its own.
 *
 * @since 1.0.0
 * @category constants
 */
export const helpFlag: Row = ["-h, --help", "This help."]

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
  readonly commands: ReadonlyArray<Row>
  readonly examples: ReadonlyArray<Row>
}): string =>
  text([
    HelpDoc.h1(HelpDoc.getSpan(HelpDoc.p(`${options.name} ${options.version}`))),
    HelpDoc.p(paragraph(options.description)),
    ...section("USAGE", `  $ ${options.name} <command> [flags]`),
    ...section("COMMANDS", twoColumns(options.commands)),
    ...section(
      "FLAGS",
      twoColumns([
        ["-h, --help", `This help; \`${options.name} <command> --help\` shows a command's flags and examples.`],
        ["--version", "The version."],
        [
          "--completions SHELL",
          "Print a completion script for bash, zsh, fish or sh, e.g. `source <(leasehold " +
          "--completions bash)`."
        ]
      ])
    ),
    ...section("EXAMPLES", examples(options.examples)),
    ...exitCodes
  ])

/**
 * A command's help: its name and what it does, usage, description, arguments, its own flags, the flags that find the
 * table, examples, then the exit codes and environment. No line ends in spaces, and the text ends with the last line.
 *
 * @since 1.0.0
 * @category constructors
 */
export const command = (
  help: CommandHelp,
  options: { readonly name: string; readonly version: string; readonly tableFlags: ReadonlyArray<Row> }
): string =>
  text([
    HelpDoc.h1(HelpDoc.getSpan(HelpDoc.p(`${options.name} ${help.path}`))),
    HelpDoc.p(paragraph(help.summary)),
    ...section("USAGE", `  $ ${options.name} ${help.path} ${help.usage}`),
    ...section("DESCRIPTION", paragraph(help.description)),
    ...(help.arguments === undefined ? [] : section("ARGUMENTS", twoColumns(help.arguments))),
    ...(help.commands === undefined ? [] : section("COMMANDS", twoColumns(help.commands))),
    ...section("FLAGS", twoColumns([...help.flags, helpFlag])),
    ...(help.tableFlags ? section("TABLE FLAGS", twoColumns(options.tableFlags)) : []),
    ...(help.examples.length === 0 ? [] : section("EXAMPLES", examples(help.examples))),
    ...exitCodes
  ])
