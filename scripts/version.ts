/**
 * `npm run version`: turns the pending changesets of both Effect lines into new versions.
 *
 * The two lines are versioned apart: the repository's `.changeset/` holds the changesets of the core, the Effect 3
 * line (1.x, published on the `effect3` dist-tag) and the CLI; `effect4/.changeset/` those of the Effect 4 line (2.x,
 * on `latest`). This runs `changeset version` for each, and then keeps the one thing that ties them together: every
 * Effect 4 package depends on exactly the core version it is built and tested with. When the core's version moves, the
 * Effect 4 packages get the new exact version, and a patch changeset of their own if none is pending, so that they
 * are released with it; the Effect 4 project's lockfile is brought up to date.
 *
 * Review the changed versions and changelogs, commit, and release with `npm run release:publish`.
 */
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")
const effect4 = Path.join(root, "effect4")
const changeset = Path.join(root, "node_modules", "@changesets", "cli", "bin.js")

interface Manifest {
  readonly name: string
  readonly version: string
  readonly private?: boolean
  dependencies?: Record<string, string>
}

const readManifest = (file: string): Manifest => JSON.parse(Fs.readFileSync(file, "utf8")) as Manifest

const coreVersion = (): string => readManifest(Path.join(root, "packages", "core", "package.json")).version

const effect4Manifests = (): Array<string> =>
  Fs.readdirSync(Path.join(effect4, "packages"))
    .map((name) => Path.join(effect4, "packages", name, "package.json"))
    .filter((file) => Fs.existsSync(file))

const pendingChangesets = (directory: string): Array<string> =>
  Fs.readdirSync(directory).filter((file) => file.endsWith(".md") && file !== "README.md")

const run = (cwd: string, args: ReadonlyArray<string>) => {
  console.log(`version: ${Path.relative(root, cwd) || "."}: changeset ${args.join(" ")}`)
  execFileSync(process.execPath, [changeset, ...args], { cwd, stdio: "inherit" })
}

/** The Effect 4 packages whose exact core dependency is not `version`, after setting it to `version`. */
const pinCore = (version: string): Array<string> => {
  const moved: Array<string> = []
  for (const file of effect4Manifests()) {
    const manifest = readManifest(file)
    const pinned = manifest.dependencies?.["@leasehold/core"]
    if (pinned === undefined || pinned === version) continue
    manifest.dependencies!["@leasehold/core"] = version
    Fs.writeFileSync(file, JSON.stringify(manifest, null, 2) + "\n")
    if (manifest.private !== true) moved.push(manifest.name)
  }
  return moved
}

const main = () => {
  const before = coreVersion()
  run(root, ["version"])
  const after = coreVersion()
  const moved = pinCore(after)
  const changesets = Path.join(effect4, ".changeset")
  if (moved.length > 0 && pendingChangesets(changesets).length === 0) {
    const packages = moved.map((name) => `"${name}": patch`).join("\n")
    const note = `Built on @leasehold/core ${after}.`
    Fs.writeFileSync(Path.join(changesets, `core-${after}.md`), `---\n${packages}\n---\n\n${note}\n`)
    console.log(`version: the core moved from ${before} to ${after}; the Effect 4 line gets a patch release with it`)
  }
  run(effect4, ["version"])
  execFileSync("npm", ["install", "--package-lock-only", "--no-audit", "--no-fund"], { cwd: effect4, stdio: "inherit" })
  console.log("version: done; review the versions and changelogs of both lines, and commit")
}

main()
