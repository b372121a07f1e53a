/**
 * The install commands of the documentation, as a user copies them: every `npm i` / `npm install` that names packages,
 * on a line of a shell block (```sh) or in an inline code span, in the READMEs (the repository's, each package's of
 * both lines, `effect4/README.md`) and the site's pages.
 *
 * Each command is for one line, which it says itself, as npm reads it: a Leasehold package on the `effect3` dist-tag
 * is the Effect 3 line, one without a tag (npm's `latest`) the Effect 4 line, `@leasehold/cli` alone neither. A command
 * that names no Leasehold package is an error (the check could not tell which app it belongs in). On a shell line, a
 * comment may narrow the Effect versions the command is for: `# Effect 3.21` (that minor), `# Effect 3.22.2+` (from
 * that version on, within its major); without one, a command is for every Effect version its line supports.
 *
 * The package check runs each command verbatim in a fresh app on the oldest and on the newest Effect it is for, with
 * the packed tarballs in place of the Leasehold packages (and of the Leasehold packages they depend on, which the
 * registry would supply), and an Effect version range replaced by that Effect version (saved exactly, as the app has
 * it) when npm would pick another.
 */
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { root } from "../publicPackages.js"
import { installedVersion, makeApp } from "./apps.js"
import type { Packed } from "./packing.js"
import { check, npm, step, writeJson } from "./run.js"

export type CommandLine = "effect3" | "effect4" | "cli"

export interface InstallCommand {
  /** Where the docs have it: `README.md:51`. */
  readonly where: string
  /** The command as written (without its comment). */
  readonly text: string
  /** What follows `npm`. */
  readonly args: ReadonlyArray<string>
  readonly line: CommandLine
  /** The Effect versions the comment narrows the command to, if it does. */
  readonly narrowed?: EffectVersions
}

/** A minor (`3.21`: every 3.21.x) or a version and those after it in its major (`3.22.2+`). */
export interface EffectVersions {
  readonly text: string
  readonly includes: (version: string) => boolean
}

const parseVersion = (version: string): ReadonlyArray<number> => version.split(".").map(Number)

/** Orders plain `x.y.z` versions. */
export const compareVersions = (a: string, b: string): number => {
  const [x, y] = [parseVersion(a), parseVersion(b)]
  return (x[0]! - y[0]!) || (x[1]! - y[1]!) || (x[2]! - y[2]!)
}

const narrowing = (comment: string): EffectVersions | undefined => {
  const match = /\bEffect (\d+)\.(\d+)(?:\.(\d+)(\+))?(?![.\d])/.exec(comment)
  if (match === null) return undefined
  const [, major, minor, patch] = match
  if (patch === undefined) {
    return { text: `Effect ${major}.${minor}`, includes: (v) => v.startsWith(`${major}.${minor}.`) }
  }
  const from = `${major}.${minor}.${patch}`
  return {
    text: `Effect ${from}+`,
    includes: (v) => v.startsWith(`${major}.`) && compareVersions(v, from) >= 0
  }
}

/** The documentation files whose install commands are checked, relative to the repository. */
export const documentationFiles = (): ReadonlyArray<string> => {
  const readmes = (project: string) =>
    Fs.readdirSync(Path.join(root, project, "packages"))
      .map((folder) => Path.join(project, "packages", folder, "README.md"))
      .filter((file) => Fs.existsSync(Path.join(root, file)))
  // The site's pages, but for those its build generates (ignored by git: the API reference, the benchmarks page).
  const site = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "site/src"], {
    cwd: root,
    encoding: "utf8"
  }).split("\n").filter((file) => file.endsWith(".md"))
  return ["README.md", ...readmes(""), "effect4/README.md", ...readmes("effect4"), ...site].map((file) =>
    file.split(Path.sep).join("/")
  )
}

const installVerb = /^npm (?:i|install|add)\s+(.*)$/

/** The line a command is for, from the Leasehold packages it names. */
const lineOf = (args: ReadonlyArray<string>, where: string, text: string): CommandLine => {
  const leasehold = args.filter((arg) => arg.startsWith("@leasehold/"))
  check(
    leasehold.length > 0,
    `${where}: \`${text}\` names no Leasehold package, so the package check can not tell which line it is for`
  )
  const lines = new Set(
    leasehold.filter((arg) => !arg.startsWith("@leasehold/cli")).map((arg) =>
      arg.endsWith("@effect3") ? "effect3" : "effect4"
    )
  )
  check(lines.size <= 1, `${where}: \`${text}\` mixes the Effect 3 line's packages with the Effect 4 line's`)
  return ([...lines][0] ?? "cli") as CommandLine
}

const commandOf = (text: string, comment: string, where: string): InstallCommand | undefined => {
  const match = installVerb.exec(text.trim())
  if (match === null) return undefined
  const rest = match[1]!.trim().split(/\s+/)
  // `npm install` alone, or with options only, installs a project, not packages.
  if (rest.every((arg) => arg.startsWith("-"))) return undefined
  const args = [text.trim().split(/\s+/)[1]!, ...rest]
  const line = lineOf(args, where, text.trim())
  const narrowed = narrowing(comment)
  check(
    narrowed === undefined || line !== "cli",
    `${where}: \`${text.trim()}\` is the CLI's, which runs beside any Effect: its comment names ${narrowed?.text}`
  )
  return { where, text: text.trim(), args, line, ...(narrowed === undefined ? {} : { narrowed }) }
}

/** Every install command of one Markdown file. */
export const commandsIn = (file: string, markdown: string): ReadonlyArray<InstallCommand> => {
  const commands: Array<InstallCommand> = []
  let fence: string | undefined
  markdown.split("\n").forEach((text, index) => {
    const where = `${file}:${index + 1}`
    const opening = /^\s*(```+|~~~+)\s*(\S*)/.exec(text)
    if (fence === undefined && opening !== null) {
      fence = ["sh", "bash", "shell", "console", ""].includes(opening[2]!) ? "shell" : "other"
      return
    }
    if (fence !== undefined && /^\s*(```+|~~~+)\s*$/.test(text)) {
      fence = undefined
      return
    }
    if (fence === "other") return
    if (fence === "shell") {
      const [command = "", ...comment] = text.replace(/^\s*\$\s+/, "").split(/\s#\s?/)
      const found = commandOf(command, comment.join(" # "), where)
      if (found !== undefined) commands.push(found)
      return
    }
    for (const span of text.matchAll(/`([^`]+)`/g)) {
      const found = commandOf(span[1]!, "", where)
      if (found !== undefined) commands.push(found)
    }
  })
  return commands
}

/** Every install command of the documentation. */
export const installCommands = (): ReadonlyArray<InstallCommand> =>
  documentationFiles().flatMap((file) => commandsIn(file, Fs.readFileSync(Path.join(root, file), "utf8")))

/** The same command once, where the docs have it first. */
export const distinct = (commands: ReadonlyArray<InstallCommand>): ReadonlyArray<InstallCommand> => {
  const seen = new Map<string, InstallCommand>()
  for (const command of commands) {
    const key = `${command.args.join(" ")}|${command.narrowed?.text ?? ""}`
    if (!seen.has(key)) seen.set(key, command)
  }
  return [...seen.values()]
}

// ---------------------------------------------------------------------------------------------------------------------
// Running them

/** Versions of `effect` the registry has for a range or dist-tag, oldest first (asked once per range). */
const effectVersions = new Map<string, ReadonlyArray<string>>()

export const registryVersions = (spec: string, cwd: string): ReadonlyArray<string> => {
  const known = effectVersions.get(spec)
  if (known !== undefined) return known
  const { millis, stdout } = npm(
    ["view", `effect@${spec}`, "version", "--json"],
    cwd,
    `npm view effect@${spec} version`
  )
  spent += millis
  const parsed = stdout.trim() === "" ? [] : JSON.parse(stdout) as string | ReadonlyArray<string>
  const versions = [...(typeof parsed === "string" ? [parsed] : parsed)].sort(compareVersions)
  effectVersions.set(spec, versions)
  return versions
}

/**
 * The Effect versions to run a command on: the oldest and the newest that its line's peer range admits and its
 * comment, if any, narrows to.
 */
export const pinsOf = (command: InstallCommand, peerRange: string, cwd: string): ReadonlyArray<string> => {
  const versions = registryVersions(peerRange, cwd).filter((v) => command.narrowed?.includes(v) ?? true)
  check(
    versions.length > 0,
    `${command.where}: \`${command.text}\` is for ${command.narrowed?.text}, which the line's range ${peerRange} ` +
      "does not admit"
  )
  return [...new Set([versions[0]!, versions.at(-1)!])]
}

/** The line's tarball for a Leasehold package spec (`@leasehold/lock@effect3`), with what it says it must be. */
const tarballFor = (spec: string, line: CommandLine, packed: ReadonlyArray<Packed>, where: string): Packed => {
  const [, name, tag] = /^(@leasehold\/[^@]+)(?:@(.+))?$/.exec(spec)!
  const candidates = packed.filter((p) => p.package.name === name)
  const found = candidates.find((p) =>
    p.package.line === line || p.package.line === "shared" || (line === "cli" && p.package.folder === "cli")
  )
  check(found !== undefined, `${where}: ${spec} is no package of the ${line} line`)
  const distTag = (found!.manifest as { publishConfig?: { tag?: string } }).publishConfig?.tag ?? "latest"
  check(
    (tag ?? "latest") === distTag,
    `${where}: ${spec} asks for the dist-tag ${tag ?? "latest"}, and ${found!.package.label} is published on ${distTag}`
  )
  return found!
}

/** The Leasehold packages a package depends on, in the same line, transitively (the registry would supply them). */
const withDependencies = (first: ReadonlyArray<Packed>, packed: ReadonlyArray<Packed>): ReadonlyArray<Packed> => {
  const all: Array<Packed> = []
  const visit = (p: Packed) => {
    if (all.includes(p)) return
    all.push(p)
    for (const name of Object.keys(p.manifest.dependencies ?? {})) {
      const dependency = packed.find((q) =>
        q.package.name === name && (q.package.line === p.package.line || q.package.line === "shared")
      )
      if (dependency !== undefined) visit(dependency)
    }
  }
  first.forEach(visit)
  return all
}

/**
 * What a command runs as in an app on `effect`: Leasehold packages as tarballs (and the ones they depend on), `effect`
 * (with or without a range) as the app's version unless npm would pick that version anyway, a global install into
 * `globalPrefix`.
 */
export const substitute = (
  command: InstallCommand,
  packed: ReadonlyArray<Packed>,
  effect: string | undefined,
  globalPrefix: string,
  cwd: string
): ReadonlyArray<string> => {
  const named: Array<Packed> = []
  let pinned = false
  const args = command.args.map((arg) => {
    if (arg.startsWith("@leasehold/")) {
      const p = tarballFor(arg, command.line, packed, command.where)
      named.push(p)
      return p.tarball
    }
    const effectSpec = /^effect(?:@(.+))?$/.exec(arg)
    if (effectSpec === null || effect === undefined) return arg
    const range = effectSpec[1] ?? "latest"
    const versions = registryVersions(range, cwd)
    check(
      versions.includes(effect),
      `${command.where}: \`${command.text}\` asks for effect@${range}, which does not admit the Effect ${effect} it is for`
    )
    if (versions.at(-1) === effect) return arg
    pinned = true
    return `effect@${effect}`
  })
  const extra = withDependencies(named, packed).filter((p) => !named.includes(p)).map((p) => p.tarball)
  const global = args.some((arg) => arg === "-g" || arg === "--global") ? ["--prefix", globalPrefix] : []
  // The app stays on its effect, as it would with the version the user has.
  const exact = pinned ? ["--save-exact"] : []
  return [...args, ...extra, ...global, ...exact, "--prefer-offline"]
}

/** A fresh app whose `package.json` holds `effect` at exactly `effect`, installed. */
export const makePinnedApp = (directory: string, effect: string): void => {
  Fs.mkdirSync(directory, { recursive: true })
  const manifest = { name: Path.basename(directory), private: true, type: "module", dependencies: { effect } }
  writeJson(Path.join(directory, "package.json"), manifest)
  spent += npm(["install", "--prefer-offline"], directory, `an app on effect ${effect}`).millis
}

/** How long the docs' install commands (and the fresh apps they start in) have taken, in milliseconds. */
let spent = 0

export const installCommandsMillis = (): number => spent

/** The commands of a line by the Effect versions they run on, oldest first. */
export const commandsByEffect = (
  commands: ReadonlyArray<InstallCommand>,
  peerRange: string,
  cwd: string
): Map<string, Array<InstallCommand>> => {
  const byEffect = new Map<string, Array<InstallCommand>>()
  for (const command of commands) {
    for (const effect of pinsOf(command, peerRange, cwd)) {
      const onIt = byEffect.get(effect) ?? []
      // One command the docs narrow in one place and not in another runs once on an Effect version both are for.
      if (!onIt.some((other) => other.args.join(" ") === command.args.join(" "))) {
        byEffect.set(effect, [...onIt, command])
      }
    }
  }
  return new Map([...byEffect].sort(([a], [b]) => compareVersions(a, b)))
}

/**
 * Runs commands, in the docs' order, in an app (on `effect`, which none of them may change), as a user who follows the
 * docs does: the library first, then the test kit. Returns a line for the summary.
 */
export const runInstallCommands = (
  app: string,
  commands: ReadonlyArray<InstallCommand>,
  effect: string | undefined,
  packed: ReadonlyArray<Packed>
): string => {
  for (const command of commands) {
    step(`${command.where}: \`${command.text}\`${effect === undefined ? "" : ` on effect ${effect}`}`)
    const args = substitute(command, packed, effect, Path.join(app, "global"), app)
    spent +=
      npm(args, app, `${command.where}: \`${command.text}\`${effect === undefined ? "" : ` on effect ${effect}`}`)
        .millis
    if (effect !== undefined) {
      const installed = installedVersion(app, "effect")
      check(
        installed === effect,
        `${command.where}: \`${command.text}\` changed the app's effect ${effect} to ${installed}`
      )
    }
  }
  if (commands.some((command) => !command.args.includes("-g"))) {
    const where = effect === undefined ? "" : ` on effect ${effect}`
    spent += npm(["ls", "--all"], app, `npm ls after the docs' install commands${where}`).millis
  }
  return `${effect === undefined ? "the CLI's" : `effect ${effect}`}: ${commands.length}`
}

/** The commands for an Effect version no other app of the check is on, in a fresh app of their own on it. */
export const checkInstallCommandsAlone = (
  directory: string,
  commands: ReadonlyArray<InstallCommand>,
  effect: string | undefined,
  packed: ReadonlyArray<Packed>
): string => {
  step(`a fresh app${effect === undefined ? "" : ` on effect ${effect}`} for the docs' install commands`)
  const started = performance.now()
  if (effect === undefined) makeApp(directory, {})
  else makePinnedApp(directory, effect)
  if (effect === undefined) spent += performance.now() - started
  return runInstallCommands(directory, commands, effect, packed)
}
