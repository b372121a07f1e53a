/**
 * `npm run release:version`: turns the pending changesets of both Effect lines into new versions.
 *
 * The two lines are versioned apart: the repository's `.changeset/` holds the changesets of the core, the Effect 3
 * line (1.x, published on the `effect3` dist-tag) and the CLI; `effect4/.changeset/` those of the Effect 4 line (2.x,
 * on `latest`). This runs `changeset version` for each, and then keeps what ties them together (the versions' story,
 * `scripts/versionStory.ts`):
 *
 * - A line that was never released (its packages' changelogs have no version section yet) is released at the version
 *   its `package.json` files name, 1.0.0 and 2.0.0, whatever bump the pending changesets ask for: their notes become
 *   that version's changelog.
 * - Every Effect 4 package depends on exactly the core version it is built and tested with. When the core's version
 *   moves, the Effect 4 packages get the new exact version, and a patch changeset of their own if none is pending, so
 *   that they are released with it; the Effect 4 project's lockfile is brought up to date.
 * - `releasedWithEffect3` in `effect4/package.json` records which Effect 4 version comes out with each Effect 3 line
 *   version, so that the Effect 4 API pages say when a module was added in the Effect 4 line's versions.
 *
 * It ends with the story's check. Review the changed versions and changelogs, commit, and release with
 * `npm run release:publish`.
 */
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { type Manifest, releasedVersions, storyProblems } from "./versionStory.js"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")
const effect4 = Path.join(root, "effect4")
const changeset = Path.join(root, "node_modules", "@changesets", "cli", "bin.js")

const readManifest = (file: string): Manifest => JSON.parse(Fs.readFileSync(file, "utf8")) as Manifest
const writeManifest = (file: string, manifest: Manifest) =>
  Fs.writeFileSync(file, JSON.stringify(manifest, null, 2) + "\n")

const coreVersion = (): string => readManifest(Path.join(root, "packages", "core", "package.json")).version

/** Every package manifest of a project (`<project>/packages/<name>/package.json`). */
const manifestsOf = (project: string): Array<string> =>
  Fs.readdirSync(Path.join(project, "packages"))
    .map((name) => Path.join(project, "packages", name, "package.json"))
    .filter((file) => Fs.existsSync(file))

const pendingChangesets = (directory: string): Array<string> =>
  Fs.readdirSync(directory).filter((file) => file.endsWith(".md") && file !== "README.md")

const run = (cwd: string, args: ReadonlyArray<string>) => {
  console.log(`version: ${Path.relative(root, cwd) || "."}: changeset ${args.join(" ")}`)
  execFileSync(process.execPath, [changeset, ...args], { cwd, stdio: "inherit" })
}

/** The public packages of a project with their versions, by manifest file. */
const publicVersions = (project: string): Map<string, string> =>
  new Map(
    manifestsOf(project)
      .filter((file) => readManifest(file).private !== true)
      .map((file) => [file, readManifest(file).version])
  )

/**
 * `changeset version` in a project; a line that was never released keeps the versions it had (its first release),
 * with the changelog section that changesets wrote under the bumped version renamed to it, and every dependency of
 * either project on its packages set back.
 */
const versionLine = (project: string): void => {
  const before = publicVersions(project)
  const firstRelease = [...before.keys()].every((file) => releasedVersions(Path.dirname(file)).length === 0)
  run(project, ["version"])
  if (!firstRelease) return
  const restored = new Map<string, { readonly from: string; readonly to: string }>()
  for (const [file, version] of before) {
    const manifest = readManifest(file)
    if (manifest.version === version) continue
    restored.set(manifest.name, { from: manifest.version, to: version })
    const changelog = Path.join(Path.dirname(file), "CHANGELOG.md")
    if (Fs.existsSync(changelog)) {
      const text = Fs.readFileSync(changelog, "utf8")
      Fs.writeFileSync(
        changelog,
        text.replace(new RegExp(`^## ${manifest.version.replace(/\./g, "\\.")}$`, "m"), `## ${version}`)
      )
    }
    manifest.version = version
    writeManifest(file, manifest)
  }
  if (restored.size === 0) return
  console.log(
    `version: the first release of ${[...restored.keys()].join(", ")} keeps ${
      [...new Set([...restored.values()].map((r) => r.to))].join(", ")
    }`
  )
  for (const file of [...manifestsOf(root), ...manifestsOf(effect4)]) {
    const manifest = readManifest(file)
    let changed = false
    for (const dependencies of [manifest.dependencies, manifest.devDependencies]) {
      for (const [name, spec] of Object.entries(dependencies ?? {})) {
        const moved = restored.get(name)
        if (moved === undefined || !spec.endsWith(moved.from)) continue
        dependencies![name] = spec.slice(0, spec.length - moved.from.length) + moved.to
        changed = true
      }
    }
    if (changed) writeManifest(file, manifest)
  }
}

/** The Effect 4 packages whose exact core dependency is not `version`, after setting it to `version`. */
const pinCore = (version: string): Array<string> => {
  const moved: Array<string> = []
  for (const file of manifestsOf(effect4)) {
    const manifest = readManifest(file)
    const pinned = manifest.dependencies?.["@leasehold/core"]
    if (pinned === undefined || pinned === version) continue
    manifest.dependencies!["@leasehold/core"] = version
    writeManifest(file, manifest)
    if (manifest.private !== true) moved.push(manifest.name)
  }
  return moved
}

const main = () => {
  const before = coreVersion()
  const effect3Pending = pendingChangesets(Path.join(root, ".changeset")).length > 0
  versionLine(root)
  const after = coreVersion()
  const moved = pinCore(after)
  const changesets = Path.join(effect4, ".changeset")
  if (moved.length > 0 && pendingChangesets(changesets).length === 0) {
    const packages = moved.map((name) => `"${name}": patch`).join("\n")
    const note = `Built on @leasehold/core ${after}.`
    Fs.writeFileSync(Path.join(changesets, `core-${after}.md`), `---\n${packages}\n---\n\n${note}\n`)
    console.log(`version: the core moved from ${before} to ${after}; the Effect 4 line gets a patch release with it`)
  }
  versionLine(effect4)
  if (effect3Pending) {
    const file = Path.join(effect4, "package.json")
    const project = readManifest(file)
    const effect4Version = readManifest(Path.join(effect4, "packages", "lock", "package.json")).version
    project.releasedWithEffect3 = { ...project.releasedWithEffect3, [after]: effect4Version }
    writeManifest(file, project)
    console.log(`version: the Effect 3 line's ${after} comes out with the Effect 4 line's ${effect4Version}`)
  }
  execFileSync("npm", ["install", "--package-lock-only", "--no-audit", "--no-fund"], { cwd: root, stdio: "inherit" })
  execFileSync("npm", ["install", "--package-lock-only", "--no-audit", "--no-fund"], { cwd: effect4, stdio: "inherit" })
  const problems = storyProblems()
  for (const problem of problems) console.error(`version: ${problem}`)
  if (problems.length > 0) {
    process.exitCode = 1
    return
  }
  console.log("version: done; review the versions and changelogs of both lines, and commit")
}

main()
