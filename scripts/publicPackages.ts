/**
 * The packages that are published, each after the packages it imports (the order they build and pack in): the
 * Effect-free core, the Effect 3 line (`packages/`), the Effect 4 line (`effect4/packages/`, an npm project of its
 * own whose packages keep the Effect 3 line's names), and the CLI.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

/** The core, the Effect 3 line and the CLI, folders of `packages/`, in the order they build. */
export const publicPackages = ["core", "lock", "dynamodb", "testing", "cli"] as const

export const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")

/**
 * Where the documentation is read: the site's guides (`site/src/guide`), as GitHub shows them, until the site has an
 * address of its own. Each public package's `homepage` is one of them, and its README links to one near its top.
 */
export const docsHome = "https://github.com/leasehold/leasehold/blob/main/site/src/guide/"

/** The Effect 4 line's npm project, with its own TypeScript and effect. */
export const effect4Project = Path.join(root, "effect4")

/** Which build a package belongs to: `shared` is the core and the CLI, which serve both Effect lines. */
export type Line = "shared" | "effect3" | "effect4"

export interface PublicPackage {
  /** The package's name, which both Effect lines share: `@leasehold/lock`. */
  readonly name: string
  /** Its folder's name, what `npm run build -- <folder>` selects: `lock`. */
  readonly folder: string
  readonly line: Line
  readonly directory: string
  readonly version: string
  readonly private: boolean
  /** How the scripts name it in their output, with the line when both lines have the name. */
  readonly label: string
}

export interface Manifest {
  readonly name: string
  readonly version: string
  readonly private?: boolean
  readonly files?: ReadonlyArray<string>
  readonly dependencies?: Record<string, string>
  readonly peerDependencies?: Record<string, string>
  readonly peerDependenciesMeta?: Record<string, { readonly optional?: boolean }>
}

export const readManifest = (directory: string): Manifest =>
  JSON.parse(Fs.readFileSync(Path.join(directory, "package.json"), "utf8")) as Manifest

const describe = (directory: string, folder: string, line: Line): PublicPackage => {
  const manifest = readManifest(directory)
  const lineName = line === "effect3" ? " (Effect 3)" : line === "effect4" ? " (Effect 4)" : ""
  return {
    name: manifest.name,
    folder,
    line,
    directory,
    version: manifest.version,
    private: manifest.private === true,
    label: `${manifest.name}${lineName}`
  }
}

/**
 * The Effect 4 line's packages, every folder of `effect4/packages/` but the private ones, in dependency order (a
 * package after the line's packages it depends on, else by name).
 */
export const effect4Packages = (): ReadonlyArray<PublicPackage> => {
  const directory = Path.join(effect4Project, "packages")
  // The line's workspace also holds tools that are never published (the bench's workers): those are `private`.
  const folders = Fs.readdirSync(directory)
    .filter((folder) => Fs.existsSync(Path.join(directory, folder, "package.json")))
    .filter((folder) => readManifest(Path.join(directory, folder)).private !== true)
    .sort()
  const manifests = new Map(folders.map((folder) => [folder, readManifest(Path.join(directory, folder))]))
  const folderOf = new Map(folders.map((folder) => [manifests.get(folder)!.name, folder]))
  const ordered: Array<string> = []
  const visiting = new Set<string>()
  const visit = (folder: string) => {
    if (ordered.includes(folder)) return
    if (visiting.has(folder)) throw new Error(`effect4/packages: a dependency cycle through ${folder}`)
    visiting.add(folder)
    const manifest = manifests.get(folder)!
    for (const name of Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }).sort()) {
      const dependency = folderOf.get(name)
      if (dependency !== undefined) visit(dependency)
    }
    visiting.delete(folder)
    ordered.push(folder)
  }
  for (const folder of folders) visit(folder)
  return ordered.map((folder) => describe(Path.join(directory, folder), folder, "effect4"))
}

/** Every published package of both lines, in build order (the core, Effect 3, Effect 4, the CLI). */
export const allPackages = (): ReadonlyArray<PublicPackage> => {
  const inPackages = (folder: string, line: Line) => describe(Path.join(root, "packages", folder), folder, line)
  return [
    inPackages("core", "shared"),
    ...publicPackages.filter((folder) => folder !== "core" && folder !== "cli").map((folder) =>
      inPackages(folder, "effect3")
    ),
    ...effect4Packages(),
    inPackages("cli", "shared")
  ]
}

/**
 * The packages a command line selects: none named, all of them; a folder's name (`lock`), that package in every line
 * that has it; `effect3/<folder>` or `effect4/<folder>`, that line's only.
 */
export const select = (
  packages: ReadonlyArray<PublicPackage>,
  requested: ReadonlyArray<string>
): ReadonlyArray<PublicPackage> => {
  if (requested.length === 0) return packages
  const matches = (request: string, p: PublicPackage) => {
    const [line, folder] = request.includes("/") ? request.split("/", 2) : [undefined, request]
    return p.folder === folder && (line === undefined || p.line === line)
  }
  const unknown = requested.filter((request) => !packages.some((p) => matches(request, p)))
  if (unknown.length > 0) {
    const known = packages.map((p) => p.line === "shared" ? p.folder : `${p.line}/${p.folder}`)
    throw new Error(`not a public package: ${unknown.join(", ")} (one of ${known.join(", ")}, or a folder's name)`)
  }
  return packages.filter((p) => requested.some((request) => matches(request, p)))
}
