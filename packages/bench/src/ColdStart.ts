/**
 * Cold start: what a new process (a new Lambda instance) pays from its start to its first lock held, beside a program
 * on the same `effect` and AWS SDK that sends its first conditional write by hand. Both run from the packed tarballs
 * (`npm run pack`) installed in a fresh app per line, as a user's app has them, never from the repository's sources:
 * the line of `packages/` under the bench's Node, the line of `effect4/` under that project's Node (`Lines.node`).
 */
import { execFileSync, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { tables } from "./Contender.js"
import * as Lines from "./Lines.js"
import type { ServerProcess } from "./ServerProcess.js"
import { fixed, median, sorted, spread, table } from "./Stats.js"

export interface Options {
  /** Fresh processes per program, after one discarded round. */
  readonly processes: number
}

/** One line's fresh app, installed from the tarballs. */
export interface App {
  /** The line's name, as the rows print it. */
  readonly effect: string
  /** The Node binary its programs run under, and what its `--version` prints. */
  readonly node: string
  readonly nodeVersion: string
  readonly directory: string
  /** What the app installed, by name: the line's packages and their peers. */
  readonly installed: ReadonlyArray<readonly [name: string, version: string]>
}

export interface Row {
  readonly program: string
  readonly app: App
  /** Per process, ms since it started: the first lock held (the baseline: its write answered). */
  readonly done: Array<number>
  /** Per process, ms since it started: its static imports evaluated. */
  readonly imported: Array<number>
  /** Per process, ms from spawning it to its exit, as the bench saw it. */
  readonly wall: Array<number>
  /** The baseline row of the same line, which the ratio compares with. */
  readonly baseline?: Row
}

/** One line's import steps: per process, each step's name and the ms since the process started when it was done. */
export interface Imports {
  readonly app: App
  readonly runs: Array<ReadonlyArray<readonly [step: string, at: number]>>
}

export interface Result {
  readonly apps: ReadonlyArray<App>
  readonly rows: ReadonlyArray<Row>
  readonly imports: ReadonlyArray<Imports>
  /** Lines that did not run, and why. */
  readonly skipped: ReadonlyArray<string>
}

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url))
const programs = fileURLToPath(new URL("./coldStart/", import.meta.url))

/** A program that neither holds its lock nor gets its write answered in this long is stuck, not slow. */
const processTimeoutMs = 60_000

/**
 * Each line: its project (where its `effect` and SDK versions are read), the folder of its packages, and the Node its
 * rows run under, with what that Node's `--version` prints (undefined where it does not run).
 */
const lineSources = [
  {
    effect: "Effect 3",
    project: repoRoot,
    packages: Path.join(repoRoot, "packages"),
    node: process.execPath,
    nodeVersion: process.version as string | undefined
  },
  {
    effect: "Effect 4",
    project: Path.join(repoRoot, "effect4"),
    packages: Path.join(repoRoot, "effect4", "packages"),
    node: Lines.node,
    nodeVersion: Lines.nodeVersion
  }
] as const

type LineSource = typeof lineSources[number]

interface Manifest {
  readonly name: string
  readonly version: string
  readonly peerDependencies?: Record<string, string>
  readonly peerDependenciesMeta?: Record<string, { readonly optional?: boolean }>
}

const manifest = (directory: string): Manifest =>
  JSON.parse(Fs.readFileSync(Path.join(directory, "package.json"), "utf8")) as Manifest

/** The file `npm pack` writes for a package: its name without the `@` and with `-` for `/`, then its version. */
const tarballName = (p: Manifest): string => `${p.name.replace(/^@/, "").replace("/", "-")}-${p.version}.tgz`

const npm = (args: ReadonlyArray<string>, cwd: string): void => {
  execFileSync(process.platform === "win32" ? "npm.cmd" : "npm", [...args], {
    cwd,
    stdio: "pipe",
    env: { ...process.env, NO_UPDATE_NOTIFIER: "1" }
  })
}

/** What a failed child process said, for the log. */
const failure = (error: unknown): string => {
  const output = error as { stderr?: Buffer | string; stdout?: Buffer | string }
  const said = `${output.stdout ?? ""}${output.stderr ?? ""}`.trim().split("\n").slice(-20).join("\n")
  return said === "" ? String(error) : `${String(error).split("\n")[0]}\n${said}`
}

/**
 * A fresh app of one line: its core, lock and DynamoDB store from the tarballs in `packed`, and their peer dependencies
 * (`effect`, the AWS SDK) at the versions the line's project installs, which the line is tested with.
 */
const install = (line: LineSource, nodeVersion: string, packed: string, directory: string): App => {
  const core = Path.join(repoRoot, "packages", "core")
  const packages = [core, Path.join(line.packages, "lock"), Path.join(line.packages, "dynamodb")].map(manifest)
  const peers = [
    ...new Set(
      packages.flatMap((p) =>
        Object.keys(p.peerDependencies ?? {}).filter((name) => p.peerDependenciesMeta?.[name]?.optional !== true)
      )
    )
  ].sort()
  const projectVersion = (name: string) => manifest(Path.join(line.project, "node_modules", name)).version
  const installed: Array<readonly [string, string]> = [
    ...packages.map((p) => [p.name, p.version] as const),
    ...peers.map((name) => [name, projectVersion(name)] as const)
  ]
  const dependencies = Object.fromEntries([
    ...packages.map((p) => [p.name, `file:${Path.join(packed, tarballName(p))}`]),
    ...peers.map((name) => [name, projectVersion(name)])
  ])
  Fs.mkdirSync(directory, { recursive: true })
  Fs.writeFileSync(
    Path.join(directory, "package.json"),
    JSON.stringify({ name: Path.basename(directory), private: true, type: "module", dependencies }, null, 2) + "\n"
  )
  npm(["install", "--no-audit", "--no-fund", "--prefer-offline"], directory)
  for (const file of Fs.readdirSync(programs)) Fs.copyFileSync(Path.join(programs, file), Path.join(directory, file))
  return { effect: line.effect, node: line.node, nodeVersion, directory, installed }
}

/**
 * Packs both lines into a scratch folder, installs each line's fresh app, runs `f` with them and removes the folder;
 * undefined, with the reason logged, if packing or installing failed (no network, a line that does not build).
 */
export const withApps = async <A>(
  log: (line: string) => void,
  f: (apps: ReadonlyArray<App>, skipped: ReadonlyArray<string>) => Promise<A>
): Promise<A | undefined> => {
  const scratch = Fs.mkdtempSync(Path.join(Os.tmpdir(), "leasehold-cold-start-"))
  try {
    const packed = Path.join(scratch, "packed")
    log(`cold start: packing both lines (npm run pack) into ${packed}`)
    const apps: Array<App> = []
    const skipped: Array<string> = []
    try {
      npm(["run", "pack", "--", packed], repoRoot)
      for (const line of lineSources) {
        if (line.nodeVersion === undefined) {
          skipped.push(`${line.effect}: ${Lines.unavailable()}`)
          continue
        }
        const directory = Path.join(scratch, `app-${line.effect.replace(" ", "").toLowerCase()}`)
        log(`cold start: installing the ${line.effect} line's tarballs into ${directory}`)
        apps.push(install(line, line.nodeVersion, packed, directory))
      }
    } catch (error) {
      log(`cold start did not run: packing or installing failed: ${failure(error)}`)
      return undefined
    }
    return await f(apps, skipped)
  } finally {
    Fs.rmSync(scratch, { recursive: true, force: true })
  }
}

/**
 * A plain `node <file>` as a new instance starts one: no loader, options or compile cache that the bench's own
 * environment may carry, and the SDK's notice about old Node versions silenced so that stderr holds only failures.
 */
const environment = (server: ServerProcess, name: string): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
    COLD_START_ENDPOINT: server.clientConfig.endpoint,
    COLD_START_TABLE: tables.leasehold,
    COLD_START_NAME: name
  }
  delete env.NODE_OPTIONS
  delete env.NODE_COMPILE_CACHE
  return env
}

/** Runs one program in a fresh process: what it printed (its last line, JSON) and the ms from spawn to exit. */
const runOnce = (app: App, file: string, env: NodeJS.ProcessEnv): Promise<{ output: unknown; wall: number }> =>
  new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(app.node, [file], { cwd: app.directory, env, stdio: ["ignore", "pipe", "pipe"] })
    let exited = started
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    const timer = setTimeout(() => child.kill("SIGKILL"), processTimeoutMs)
    child.once("exit", () => {
      exited = performance.now()
    })
    child.once("error", reject)
    child.once("close", (code, signal) => {
      clearTimeout(timer)
      try {
        if (code !== 0) throw new Error(`it ended with ${signal ?? code}`)
        resolve({ output: JSON.parse(stdout.trim().split("\n").at(-1) ?? ""), wall: exited - started })
      } catch (error) {
        reject(new Error(`${app.effect}: ${file} under Node ${app.nodeVersion}: ${String(error)}\n${stdout}${stderr}`))
      }
    })
  })

const nodeMajor = (app: App): string => app.nodeVersion.replace(/^v/, "").split(".")[0]!

/**
 * Each program `options.processes` times in fresh processes, interleaved: for each line in turn its lock, its baseline
 * and its import steps, round after round, after one round that is not counted (the files the apps just installed
 * are then read from the page cache in every counted round alike).
 */
export const run = async (
  server: ServerProcess,
  apps: ReadonlyArray<App>,
  skipped: ReadonlyArray<string>,
  options: Options,
  log: (line: string) => void
): Promise<Result> => {
  const rows: Array<Row> = []
  const imports: Array<Imports> = []
  const lines = apps.map((app) => {
    const baseline: Row = {
      program: `${app.effect} + SDK, first conditional write by hand (Node ${nodeMajor(app)})`,
      app,
      done: [],
      imported: [],
      wall: []
    }
    const lock: Row = {
      program: `Leasehold (${app.effect}, Node ${nodeMajor(app)})`,
      app,
      done: [],
      imported: [],
      wall: [],
      baseline
    }
    const steps: Imports = { app, runs: [] }
    rows.push(lock, baseline)
    imports.push(steps)
    return { app, lock, baseline, steps }
  })
  for (let round = 0; round <= options.processes; round++) {
    const counted = round > 0
    log(`cold start: ${counted ? `round ${round} of ${options.processes}` : "a round not counted"}`)
    for (const { app, baseline, lock, steps } of lines) {
      for (const [row, file] of [[lock, "lock.mjs"], [baseline, "baseline.mjs"]] as const) {
        // A name no other run takes, so that every run finds its lock free and its key new.
        const name = `cold-start/${app.effect}/${file}/${round}`
        const { output, wall } = await runOnce(app, file, environment(server, name))
        const { done, imported } = output as { readonly imported: number; readonly done: number }
        if (!counted) continue
        row.done.push(done)
        row.imported.push(imported)
        row.wall.push(wall)
      }
      const { output } = await runOnce(app, "imports.mjs", environment(server, "cold-start/imports"))
      if (counted) steps.runs.push(output as Imports["runs"][number])
    }
  }
  return { apps, rows, imports, skipped }
}

const range = (values: ReadonlyArray<number>): string => {
  const s = sorted(values)
  return `${fixed(s[0]!, 0)}–${fixed(s[s.length - 1]!, 0)}`
}

const render = (rows: ReadonlyArray<Row>): string =>
  table(
    [
      "program",
      "Node",
      "median ms",
      "min–max ms",
      "ratio to its baseline",
      "imports done, median ms",
      "spawn to exit ms"
    ],
    rows.map((row) => [
      row.program,
      row.app.nodeVersion.replace(/^v/, ""),
      fixed(median(row.done), 0),
      range(row.done),
      row.baseline === undefined ? "" : `${fixed(median(row.done) / median(row.baseline.done), 2)}x`,
      fixed(median(row.imported), 0),
      spread(row.wall, 0)
    ])
  )

/** The median of each step's own time (a step's end minus the one before), per line. */
const renderImports = (imports: ReadonlyArray<Imports>): string => {
  const names = imports[0]?.runs[0]?.map(([step]) => step) ?? []
  const stepMs = (runs: Imports["runs"], index: number) =>
    median(runs.map((steps) => steps[index]![1] - (index === 0 ? 0 : steps[index - 1]![1])))
  return table(
    [
      "line",
      ...names.map((name, index) => index === 0 ? "Node's start to the program's first line" : `+ ${name}`),
      "all, median ms"
    ],
    imports.map(({ app, runs }) => [
      `${app.effect}, Node ${nodeMajor(app)}`,
      ...names.map((_, index) => fixed(stepMs(runs, index), 0)),
      fixed(median(runs.map((steps) => steps.at(-1)![1])), 0)
    ])
  )
}

/** Where each lock row's time over its baseline goes: before its imports are done, and from then to the lock held. */
const extra = (rows: ReadonlyArray<Row>): string => {
  const afterImports = (row: Row) => median(row.done.map((done, i) => done - row.imported[i]!))
  const split = rows.flatMap((row) => {
    const baseline = row.baseline
    if (baseline === undefined) return []
    const imports = median(row.imported) - median(baseline.imported)
    const after = afterImports(row) - afterImports(baseline)
    return [
      `${row.app.effect}: imports +${fixed(imports, 0)} ms, from the imports to the lock held +${fixed(after, 0)} ms`
    ]
  })
  return split.length === 0 ?
    "" :
    `Leasehold over its baseline (medians; the baseline's end is its write answered): ${split.join("; ")}.\n\n`
}

const installedList = (app: App): string =>
  `${app.effect}: ${app.installed.map(([name, version]) => `${name} ${version}`).join(", ")}`

/** The whole markdown section. */
export const section = (result: Result, options: Options): string =>
  `## 9. Cold start: from process start to the first lock held (embedded dynalite)\n\n` +
  `What a new process (a new Lambda instance) pays before its first lock is held, beside a baseline: an Effect ` +
  `program on the same \`effect\` and AWS SDK that sends its first conditional UpdateItem (\`attribute_not_exists\`, ` +
  `a new key) by hand with \`Effect.tryPromise\`. Each line's packages are packed (\`npm run pack\`) and installed ` +
  `from their tarballs into a fresh app, with their peer dependencies at the versions the line is tested with; the ` +
  `lock's program imports them as the READMEs do and runs \`Lock.withLock(name, section)\` on ` +
  `\`DynamoLockStore.layer\`. Time: each program is a plain \`node program.mjs\` and prints ` +
  `\`performance.now()\`, the ms since its process started, inside the lock's section (the baseline: once its ` +
  `write is answered), then exits, and the same clock when its static imports are evaluated (its first line); ` +
  `the bench also times each process from spawn to exit. ` +
  `${options.processes} fresh processes per program, interleaved (for each line in turn: lock, baseline, import ` +
  `steps) after one round that is not counted; median and min–max over the processes.\n\n` +
  render(result.rows) +
  `\n\nTarget: Leasehold / baseline <= 1.1x\n\n` +
  extra(result.rows) +
  `Installed: ${result.apps.map(installedList).join("; ")}.` +
  result.skipped.map((note) => ` Not run: ${note}.`).join("") +
  `\n\nWhere the lock program's imports go: a third program imports the same packages one after the other (dynamic ` +
  `imports, in this order), so that each step is what that package adds to what is loaded already; the baseline ` +
  `pays the first two steps too. Median ms of each step, over the same processes:\n\n` +
  renderImports(result.imports)
