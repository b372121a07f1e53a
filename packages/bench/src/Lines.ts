/**
 * Leasehold's two lines side by side: the Effect 3 line (this package's own workers) and the Effect 4 line (the
 * workers of `effect4/packages/bench`, which resolve `effect` 4 and the Effect 4 packages from the Effect 4 project).
 * Both run in worker processes under the Node 22 that the Effect 4 project installs, so that a row of one line and a
 * row of the other differ only in the line: the bench's own rows run under whatever Node runs the bench.
 */
import { type ChildProcess, execFileSync, fork, type StdioOptions } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { fileURLToPath, pathToFileURL } from "node:url"

export interface Line {
  /** The row label's prefix, e.g. "Leasehold (Effect 4, Node 22)". */
  readonly name: string
  /** The folder of its worker scripts (`worker.ts`, `scaleWorker.ts`, `lineWorker.ts`). */
  readonly sources: URL
}

const effect4 = new URL("../../../effect4/", import.meta.url)

/** The Node 22 binary of the Effect 4 project. */
export const node = fileURLToPath(new URL("node_modules/node22/bin/node", effect4))

/** `node --version` of the lines' Node, e.g. "v22.23.3"; undefined where it is not installed or does not run. */
export const nodeVersion: string | undefined = (() => {
  try {
    return execFileSync(node, ["--version"], { encoding: "utf8" }).trim()
  } catch {
    return undefined
  }
})()

/** "22": the major version, for the rows' labels. */
const major = nodeVersion?.replace(/^v/, "").split(".")[0] ?? "22"

export const effect3Line: Line = {
  name: `Leasehold (Effect 3, Node ${major})`,
  sources: new URL("./", import.meta.url)
}

export const effect4Line: Line = {
  name: `Leasehold (Effect 4, Node ${major})`,
  // The copies of this package's workers that the Effect 4 project assembles (`npm run bench` does it first), whose
  // imports resolve effect 4 and the Effect 4 packages there.
  sources: new URL("packages/bench/src/", effect4)
}

export const lines: ReadonlyArray<Line> = [effect3Line, effect4Line]

/** The version of `effect` the Effect 4 project installed. */
export const effect4Version = (): string => {
  try {
    const manifest = fileURLToPath(new URL("node_modules/effect/package.json", effect4))
    return (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version
  } catch {
    return "unknown"
  }
}

/**
 * Why the lines' rows can not run here, or undefined if they can: the Effect 4 project's Node 22 is installed only by
 * its `npm ci`, on linux-x64.
 */
export const unavailable = (): string | undefined =>
  nodeVersion !== undefined ?
    undefined :
    `skipped: no Node 22 runs at ${node} (the Effect 4 project's \`npm ci\` installs it on linux-x64)`

/**
 * Why the lines' rows on DynamoDB can not run, or undefined if they can: they need the Effect 4 DynamoDB store.
 */
export const dynamoUnavailable = (): string | undefined =>
  unavailable() ??
    (existsSync(fileURLToPath(new URL("packages/dynamodb/src/DynamoLockStore.ts", effect4))) ?
      undefined :
      "skipped: the Effect 4 DynamoDB store is not built")

/** tsx's loader, by URL: a worker of the Effect 4 line starts in a folder from which `tsx` does not resolve. */
const tsx = (): string => pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href

/** Starts `script` of `line` under Node 22, with IPC, as the bench starts its other workers. */
export const start = (
  line: Line,
  script: string,
  args: ReadonlyArray<string>,
  stdio: StdioOptions,
  execArgv: ReadonlyArray<string> = []
): ChildProcess =>
  fork(fileURLToPath(new URL(script, line.sources)), [...args], {
    execPath: node,
    execArgv: ["--conditions=@leasehold/source", "--import", tsx(), ...execArgv],
    stdio
  })
