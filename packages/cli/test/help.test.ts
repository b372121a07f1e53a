/**
 * Every command's `--help`, as the CLI writes it: the program's name once, a usage line that reads as a command line,
 * and each flag the parser accepts listed once with a description of its own (no line shared by every text flag).
 */
import * as CliConfig from "@effect/cli/CliConfig"
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Usage from "@effect/cli/Usage"
import { describe, expect, it } from "@effect/vitest"
import * as Cli from "../src/Cli.js"
import * as Connection from "../src/Connection.js"
import * as InspectCommand from "../src/InspectCommand.js"
import * as Color from "../src/internal/color.js"
import * as ListCommand from "../src/ListCommand.js"
import * as ReleaseCommand from "../src/ReleaseCommand.js"
import * as TableCommand from "../src/TableCommand.js"
import * as WatchCommand from "../src/WatchCommand.js"

/** Each command's parser, by the words that name it. */
const parsers: ReadonlyArray<readonly [path: string, command: Command.Command<any, any, any, any>]> = [
  ["table", TableCommand.command],
  ["table create", TableCommand.create],
  ["table check", TableCommand.check],
  ["list", ListCommand.command],
  ["inspect", InspectCommand.command],
  ["release", ReleaseCommand.command],
  ["watch", WatchCommand.command]
]

/** The long flags and the arguments the parser of `command` takes, from its own usage. */
const parsed = (command: Command.Command<any, any, any, any>, path: string) => {
  const usage = Usage.enumerate(Command.getUsage(command), CliConfig.defaultConfig)
    .map((span) => Color.strip(HelpDoc.toAnsiText(HelpDoc.p(span))))
    .join(" ")
  // A parent's usage names its subcommands too: only its own part counts.
  const own = path === "table" ? usage.split(/\b(create|check)\b/)[0] ?? "" : usage
  return {
    flags: [...own.matchAll(/--[a-z][a-z-]*/g)].map((match) => match[0]).sort(),
    arguments: [...own.matchAll(/<([A-Z]+)>/g)].map((match) => match[1]).sort()
  }
}

/** A command's help as a pipe gets it, without styles. */
const help = (path: string) => Color.strip(Cli.helpFor([...path.split(" "), "--help"]) ?? "")

/** The lines of a section of a help text: from its title to the next title. */
const section = (text: string, title: string): ReadonlyArray<string> => {
  const lines = text.split("\n")
  const start = lines.indexOf(title)
  if (start === -1) return []
  const end = lines.findIndex((line, i) => i > start && /^[A-Z][A-Z ]+$/.test(line))
  return lines.slice(start + 1, end === -1 ? undefined : end).filter((line) => line !== "")
}

/** The flag names of a two-column section: the long name of each row. */
const rowFlags = (lines: ReadonlyArray<string>) =>
  lines.flatMap((line) => /^ {2}(?:-[a-z], )?(--[a-z][a-z-]*)/.exec(line)?.[1] ?? [])

describe("leasehold <command> --help", () => {
  it("has a help for every command, and the root lists each one that runs with its summary", () => {
    expect(Cli.helps.map((help) => help.path).sort()).toEqual(parsers.map(([path]) => path).sort())
    expect(Cli.summaries.map(([path]) => path)).toEqual([
      "table create",
      "table check",
      "list",
      "inspect",
      "release",
      "watch"
    ])
  })

  for (const [path, parser] of parsers) {
    it(`${path}: the program's name once, a usage line of the command, every flag described once`, () => {
      const text = help(path)
      const lines = text.split("\n")
      const summary = Cli.helps.find((help) => help.path === path)?.summary
      // The command's full name first, then what it does: no bare "leasehold" line, no second title.
      expect(lines.slice(0, 3)).toEqual([`leasehold ${path}`, "", `  ${summary}`])
      expect(lines.filter((line) => /^leasehold\b/.test(line))).toEqual([`leasehold ${path}`])
      const usage = section(text, "USAGE")
      expect(usage).toHaveLength(1)
      expect(usage[0]).toMatch(new RegExp(`^ {2}\\$ leasehold ${path} \\S`))

      // What @effect/cli would have put before or after each flag's own description.
      expect(text).not.toMatch(/user-defined|true or false value|This setting is optional|One of the following/)
      expect(lines.filter((line) => /\s$/.test(line))).toEqual([])

      // Every flag the parser takes is listed, under FLAGS or TABLE FLAGS, once; no listed flag is unknown to it.
      const own = rowFlags(section(text, "FLAGS"))
      const table = rowFlags(section(text, "TABLE FLAGS"))
      const expected = parsed(parser, path)
      expect([...own, ...table].filter((flag) => flag !== "--help").sort()).toEqual(expected.flags)
      expect(new Set([...own, ...table]).size).toBe(own.length + table.length)
      expect(own).toContain("--help")
      expect(section(text, "ARGUMENTS").flatMap((line) => /^ {2}([A-Z]+) {2}/.exec(line)?.[1] ?? []))
        .toEqual(expected.arguments)
      if (path !== "table") expect(table).toEqual(["--table", "--region", "--endpoint", "--prefix", "--local"])

      // Each flag says what it is in words of its own: no two share a description.
      const descriptions = [...Cli.helps.find((help) => help.path === path)!.flags, ...Connection.help]
        .map(([, description]) => description)
      expect(descriptions.every((description) => description.length > 20)).toBe(true)
      expect(new Set(descriptions).size).toBe(descriptions.length)
    })
  }

  it("release: the name, usage and flags an operator needs, each with its value's name", () => {
    const text = help("release")
    expect(section(text, "USAGE")).toEqual([
      "  $ leasehold release NAME --force [--semaphore --owner OWNER] [--yes] [flags]"
    ])
    expect(section(text, "ARGUMENTS")[0]).toMatch(/^ {2}NAME {2}The lock's name \(with --semaphore, the semaphore's\)/)
    const flags = section(text, "FLAGS").join("\n")
    expect(flags).toMatch(/^ {2}--owner OWNER +With --semaphore: the owner id of the holder whose permits to release/m)
    expect(flags).toMatch(/^ {2}--force +Required: release the lock/m)
    expect(flags).toMatch(/^ {2}-y, --yes +Do not ask for confirmation/m)
    expect(flags).toMatch(/^ {2}--max-clock-skew DURATION +The clock-skew bound/m)
    const table = section(text, "TABLE FLAGS").join("\n")
    expect(table).toMatch(/^ {2}-t, --table TABLE +The lock table's name\. Default: \$LEASEHOLD_TABLE/m)
    expect(table).toMatch(/^ {2}--endpoint URL +A DynamoDB endpoint URL/m)
    expect(section(text, "EXAMPLES")).toContain("  leasehold release orders/42 --force")
    expect(section(text, "EXIT CODES")).toContain("  3  lock or semaphore not found (inspect), or not held (release)")
    expect(section(text, "ENVIRONMENT").join(" ")).toMatch(
      /AWS_PROFILE .*AWS_ACCESS_KEY_ID and\s+AWS_SECRET_ACCESS_KEY/
    )
  })

  it("the root: its own flags, each described, and every command with its summary", () => {
    const text = Color.strip(Cli.helpFor(["--help"]) ?? "")
    expect(section(text, "USAGE")).toEqual(["  $ leasehold <command> [flags]"])
    expect(section(text, "FLAGS")).toEqual([
      "  -h, --help           This help; `leasehold <command> --help` shows a command's flags and examples.",
      "  --version            The version.",
      "  --completions SHELL  Print a completion script for bash, zsh, fish or sh, e.g. `source <(leasehold",
      "                       --completions bash)`."
    ])
    expect(section(text, "COMMANDS")).toHaveLength(Cli.summaries.length)
  })

  it("table: its commands, and no table flags of its own", () => {
    const text = help("table")
    expect(section(text, "COMMANDS")).toEqual([
      `  create  ${TableCommand.createHelp.summary}`,
      `  check   ${TableCommand.checkHelp.summary}`
    ])
    expect(section(text, "TABLE FLAGS")).toEqual([])
  })

  it("the help a command line asks for: the longest command named, wherever --help or -h stands", () => {
    const asked = (args: ReadonlyArray<string>) => Color.strip(Cli.helpFor(args) ?? "")
    expect(asked(["release", "orders/42", "--force", "-h"])).toBe(help("release"))
    expect(asked(["table", "create", "--table", "locks", "--help"])).toBe(help("table create"))
    expect(asked(["table", "--help"])).toBe(help("table"))
    expect(asked(["--help"])).toMatch(/^leasehold \d+\.\d+\.\d+\n/)
    expect(Cli.helpFor(["list", "--held"])).toBeUndefined()
    expect(Cli.helpFor(["bogus", "--help"])).toBeUndefined()
  })
})
