/**
 * The versions of both Effect lines and what the API pages say about them, in one place.
 *
 * - `@leasehold/core`, the Effect 3 line (`packages/`: lock, dynamodb, testing) and `@leasehold/cli` share one
 *   version, 1.x (changesets' fixed group in `.changeset/config.json`); the first release is 1.0.0.
 * - The Effect 4 line (`effect4/packages/`) shares one version, 2.x; the first release is 2.0.0.
 * - A package whose `CHANGELOG.md` has no version section yet has never been released: its first release is the
 *   version its `package.json` names (`scripts/version.ts` keeps it, whatever the pending changesets would bump).
 * - A `@since` tag in `packages/<name>/src` names the version of the core and the Effect 3 line that first shipped
 *   it: one they released (a section of `packages/lock/CHANGELOG.md`), or their coming release (the first release
 *   while there was none, else the next patch, minor or major).
 * - The Effect 4 line's API pages (docgen's, from the same sources) name the Effect 4 version instead: the one released
 *   together with that Effect 3 version (`releasedWithEffect3` in `effect4/package.json`, which `scripts/version.ts`
 *   extends at each release), the Effect 4 line's first release while neither line was released, or "the next
 *   release" for a tag of the coming release.
 *
 *   tsx scripts/versionStory.ts --check               what breaks the story, one line each (exit 1 if anything)
 *   tsx scripts/versionStory.ts --set-since <version> sets every `@since` tag of `packages/<name>/src` to <version>
 *   tsx scripts/versionStory.ts --effect4-pages        in an Effect 4 package's folder, after docgen: its pages'
 *                                                      "Added in" lines name the Effect 4 line's version
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")
const effect4Project = Path.join(root, "effect4")

/** The packages that share the Effect 3 line's version: the core, the line's three and the CLI. */
const effect3Versioned = ["core", "lock", "dynamodb", "testing", "cli"] as const

/** The Effect 4 line's published packages. */
const effect4Versioned = ["lock", "dynamodb", "testing"] as const

/** Each line's major: its versions are `<major>.x.y`. */
export const lineMajors = { effect3: 1, effect4: 2 } as const

/** What the version scripts read and write of a package.json. */
export interface Manifest {
  readonly name: string
  version: string
  readonly private?: boolean
  dependencies?: Record<string, string>
  devDependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  releasedWithEffect3?: Record<string, string>
}

const readJson = <A>(file: string): A => JSON.parse(Fs.readFileSync(file, "utf8")) as A

const manifestFile = (project: string, folder: string) => Path.join(project, "packages", folder, "package.json")

const versionOf = (project: string, folder: string): string => readJson<Manifest>(manifestFile(project, folder)).version

type Version = readonly [number, number, number]

const parse = (version: string): Version | undefined => {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(version)
  return match === null ? undefined : [Number(match[1]), Number(match[2]), Number(match[3])]
}

const compare = (a: Version, b: Version): number => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]

/** The versions a package's changelog has a section for, newest first (changesets writes `## 1.2.0`). */
export const releasedVersions = (packageDirectory: string): ReadonlyArray<string> => {
  const file = Path.join(packageDirectory, "CHANGELOG.md")
  if (!Fs.existsSync(file)) return []
  return Array.from(Fs.readFileSync(file, "utf8").matchAll(/^## (\d+\.\d+\.\d+)\s*$/gm), (match) => match[1]!)
}

/** The next versions after `version`: its patch, minor and major. */
const nextVersions = (version: string): ReadonlyArray<string> => {
  const [major, minor, patch] = parse(version)!
  return [`${major}.${minor}.${patch + 1}`, `${major}.${minor + 1}.0`, `${major + 1}.0.0`]
}

/** The Effect 3 line's version, its released versions and what its coming release may be. */
export const effect3Line = () => {
  const version = versionOf(root, "lock")
  const released = releasedVersions(Path.join(root, "packages", "lock"))
  const coming = released.length === 0 ? [version] : nextVersions(version)
  return { version, released, coming }
}

const effect4Manifest = (): Manifest => readJson<Manifest>(Path.join(effect4Project, "package.json"))

/** What the Effect 4 line's pages say for a `@since` tag of the shared sources, or undefined for a tag out of story. */
export const effect4Since = (tag: string): string | undefined => {
  const line = effect3Line()
  const together = effect4Manifest().releasedWithEffect3 ?? {}
  if (together[tag] !== undefined) return `v${together[tag]}`
  if (!line.coming.includes(tag)) return undefined
  const effect4Released = releasedVersions(Path.join(effect4Project, "packages", "lock"))
  return effect4Released.length === 0 ? `v${versionOf(effect4Project, "lock")}` : "the next release"
}

/** Every TypeScript file of `packages/<name>/src`, relative to the repository. */
const sourceFiles = (): ReadonlyArray<string> =>
  Fs.readdirSync(Path.join(root, "packages")).flatMap((name) => {
    const src = Path.join(root, "packages", name, "src")
    if (!Fs.existsSync(src)) return []
    return Fs.readdirSync(src, { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".ts"))
      .map((file) => Path.relative(root, Path.join(src, file)))
  })

const sinceTag = /@since (\S+)/g

/** What breaks the story: each a line that says which file or package and why. */
export const storyProblems = (): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const line = effect3Line()
  const effect3Version = line.version
  const effect4Version = versionOf(effect4Project, "lock")

  const lineVersions = (
    project: string,
    folders: ReadonlyArray<string>,
    expected: string,
    major: number,
    what: string
  ) => {
    for (const folder of folders) {
      const version = versionOf(project, folder)
      if (version !== expected) {
        problems.push(
          `${Path.relative(root, manifestFile(project, folder))}: version ${version}, not ${what}'s ${expected}`
        )
      }
      if (parse(version)?.[0] !== major) {
        problems.push(
          `${Path.relative(root, manifestFile(project, folder))}: version ${version} is not ${major}.x (${what})`
        )
      }
    }
  }
  lineVersions(root, effect3Versioned, effect3Version, lineMajors.effect3, "the core and the Effect 3 line")
  lineVersions(effect4Project, effect4Versioned, effect4Version, lineMajors.effect4, "the Effect 4 line")

  // Every dependency on a package of the repository names the version the line has.
  const own = (project: string, name: string): string | undefined => {
    if (name === "@leasehold/core" || name === "@leasehold/cli") return effect3Version
    if (!name.startsWith("@leasehold/")) return undefined
    return project === root ? effect3Version : effect4Version
  }
  for (const project of [root, effect4Project]) {
    for (const folder of Fs.readdirSync(Path.join(project, "packages"))) {
      const file = manifestFile(project, folder)
      if (!Fs.existsSync(file)) continue
      const manifest = readJson<Manifest>(file)
      for (const [name, spec] of Object.entries({ ...manifest.dependencies, ...manifest.devDependencies })) {
        const version = own(project, name)
        if (version === undefined) continue
        // The Effect 4 packages depend on exactly the core they are built and tested with.
        const expected = project === effect4Project && name === "@leasehold/core" ? [version] : [version, `^${version}`]
        if (!expected.includes(spec)) {
          problems.push(`${Path.relative(root, file)}: ${name} ${spec}, not ${expected.join(" or ")}`)
        }
      }
    }
  }

  const together = effect4Manifest().releasedWithEffect3 ?? {}
  for (const [effect3, effect4] of Object.entries(together)) {
    if (!line.released.includes(effect3)) {
      problems.push(
        `effect4/package.json: releasedWithEffect3 names ${effect3}, which the Effect 3 line never released`
      )
    }
    if (parse(effect4)?.[0] !== lineMajors.effect4 || compare(parse(effect4)!, parse(effect4Version)!) > 0) {
      problems.push(`effect4/package.json: releasedWithEffect3 maps ${effect3} to ${effect4}, not a released 2.x`)
    }
  }
  for (const released of line.released) {
    if (together[released] === undefined) {
      problems.push(`effect4/package.json: releasedWithEffect3 lacks the Effect 3 line's release ${released}`)
    }
  }

  const allowed = new Set([...line.released, ...line.coming])
  const wrong = new Map<string, Set<string>>()
  for (const file of sourceFiles()) {
    for (const match of Fs.readFileSync(Path.join(root, file), "utf8").matchAll(sinceTag)) {
      const tag = match[1]!
      if (allowed.has(tag)) continue
      wrong.set(tag, (wrong.get(tag) ?? new Set()).add(file))
    }
  }
  for (const [tag, files] of wrong) {
    const where = [...files].slice(0, 3).join(", ") + (files.size > 3 ? ` and ${files.size - 3} more` : "")
    problems.push(
      `@since ${tag} (${where}): a tag names a release of the core and the Effect 3 line (` +
        `${line.released.length === 0 ? "none yet" : line.released.join(", ")}) or their coming one ` +
        `(${line.coming.join(", ")})`
    )
  }
  return problems
}

/** Sets every `@since` tag of `packages/<name>/src` to `version`; returns the files it changed. */
export const setSince = (version: string): ReadonlyArray<string> => {
  if (parse(version) === undefined) throw new Error(`not a version: ${version}`)
  const changed: Array<string> = []
  for (const file of sourceFiles()) {
    const path = Path.join(root, file)
    const text = Fs.readFileSync(path, "utf8")
    const updated = text.replace(sinceTag, `@since ${version}`)
    if (updated === text) continue
    Fs.writeFileSync(path, updated)
    changed.push(file)
  }
  return changed
}

/** Rewrites docgen's "Added in v<tag>" lines of the Effect 4 package in `directory` to the Effect 4 line's version. */
export const effect4Pages = (directory: string): number => {
  const modules = Path.join(directory, "docs", "modules")
  let rewritten = 0
  const unknown = new Set<string>()
  for (const page of Fs.readdirSync(modules).filter((file) => file.endsWith(".md"))) {
    const path = Path.join(modules, page)
    const text = Fs.readFileSync(path, "utf8")
    const updated = text.replace(/^Added in v(\S+)$/gm, (whole, tag: string) => {
      const since = effect4Since(tag)
      if (since === undefined) {
        unknown.add(`${tag} (${page})`)
        return whole
      }
      rewritten++
      return `Added in ${since}`
    })
    if (updated !== text) Fs.writeFileSync(path, updated)
  }
  if (unknown.size > 0) {
    throw new Error(`@since tags outside the versions' story: ${[...unknown].join(", ")} (see scripts/versionStory.ts)`)
  }
  return rewritten
}

const main = () => {
  const [command, argument] = process.argv.slice(2)
  if (command === "--check") {
    const problems = storyProblems()
    for (const problem of problems) console.error(`versions: ${problem}`)
    if (problems.length > 0) process.exitCode = 1
    else {console.log(
        `versions: core and Effect 3 line ${effect3Line().version}, Effect 4 line ${versionOf(effect4Project, "lock")}`
      )}
  } else if (command === "--set-since" && argument !== undefined) {
    console.log(`versions: @since ${argument} in ${setSince(argument).length} files`)
  } else if (command === "--effect4-pages") {
    const count = effect4Pages(process.cwd())
    console.log(`versions: ${count} "Added in" lines of ${Path.basename(process.cwd())}'s pages name the Effect 4 line`)
  } else {
    console.error("usage: tsx scripts/versionStory.ts --check | --set-since <version> | --effect4-pages")
    process.exitCode = 2
  }
}

if (process.argv[1] !== undefined && Path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main()
