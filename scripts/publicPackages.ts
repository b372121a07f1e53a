/**
 * The packages that are published, each after the packages it imports (the order they build and pack in): the
 * Effect-free core, the Effect 3 line (`packages/`), the Effect 4 line (`effect4/packages/`, an npm project of its
 * own whose packages keep the Effect 3 line's names), and the CLI.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

/** The core, the Effect 3 line and the CLI, folders of `packages/`, in the order they build. */
export const publicPackages = ["core", "lock", "dynamodb", "testing", "cli"] as const

export const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")

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
 * Whether a module exports nothing at all: a package scaffolded for a port whose entry point is still `export {}`.
 * Parsed, not matched, so that a comment or a string that mentions `export` does not count.
 */
export const exportsNothing = (file: string): boolean => {
  const source = ts.createSourceFile(file, Fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest)
  return source.statements.every((statement) => {
    if (ts.isExportAssignment(statement)) return false
    if (ts.isExportDeclaration(statement)) {
      const clause = statement.exportClause
      return clause !== undefined && ts.isNamedExports(clause) && clause.elements.length === 0
    }
    return !(ts.canHaveModifiers(statement) &&
      (ts.getModifiers(statement) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword))
  })
}

/**
 * The Effect 4 line's packages, every folder of `effect4/packages/` but the private ones, in dependency order (a package after the line's
 * packages it depends on, else by name), and the folders skipped as placeholders: a package whose `src/index.ts`
 * exports nothing is not ported yet.
 */
export const effect4Packages = (): {
  readonly packages: ReadonlyArray<PublicPackage>
  readonly placeholders: ReadonlyArray<string>
} => {
  const directory = Path.join(effect4Project, "packages")
  // The line's workspace also holds tools that are never published (the bench's workers): those are `private`.
  const folders = Fs.readdirSync(directory)
    .filter((folder) => Fs.existsSync(Path.join(directory, folder, "package.json")))
    .filter((folder) => readManifest(Path.join(directory, folder)).private !== true)
    .sort()
  const placeholders = folders.filter((folder) => {
    const entry = Path.join(directory, folder, "src", "index.ts")
    return !Fs.existsSync(entry) || exportsNothing(entry)
  })
  const ported = folders.filter((folder) => !placeholders.includes(folder))
  const manifests = new Map(ported.map((folder) => [folder, readManifest(Path.join(directory, folder))]))
  const folderOf = new Map(ported.map((folder) => [manifests.get(folder)!.name, folder]))
  // Placeholders count as dependencies too: a ported package that imports one can not build before it is ported.
  const namesOfPlaceholders = new Set(placeholders.map((folder) => readManifest(Path.join(directory, folder)).name))
  const ordered: Array<string> = []
  const visiting = new Set<string>()
  const visit = (folder: string) => {
    if (ordered.includes(folder)) return
    if (visiting.has(folder)) throw new Error(`effect4/packages: a dependency cycle through ${folder}`)
    visiting.add(folder)
    const manifest = manifests.get(folder)!
    for (const name of Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }).sort()) {
      if (namesOfPlaceholders.has(name)) {
        throw new Error(`effect4/packages/${folder} depends on ${name}, whose package is still a placeholder`)
      }
      const dependency = folderOf.get(name)
      if (dependency !== undefined) visit(dependency)
    }
    visiting.delete(folder)
    ordered.push(folder)
  }
  for (const folder of ported) visit(folder)
  return { packages: ordered.map((folder) => describe(Path.join(directory, folder), folder, "effect4")), placeholders }
}

/** Every published package of both lines, in build order (the core, Effect 3, Effect 4, the CLI), and the skipped. */
export const allPackages = (): {
  readonly packages: ReadonlyArray<PublicPackage>
  readonly placeholders: ReadonlyArray<string>
} => {
  const inPackages = (folder: string, line: Line) => describe(Path.join(root, "packages", folder), folder, line)
  const effect4 = effect4Packages()
  return {
    packages: [
      inPackages("core", "shared"),
      ...publicPackages.filter((folder) => folder !== "core" && folder !== "cli").map((folder) =>
        inPackages(folder, "effect3")
      ),
      ...effect4.packages,
      inPackages("cli", "shared")
    ],
    placeholders: effect4.placeholders
  }
}

/** How the scripts print a skipped placeholder. */
export const placeholderNote = (folder: string): string =>
  `skipped effect4/packages/${folder}: a placeholder, its src/index.ts exports nothing yet`

/**
 * The packages a command line selects: none named, all of them; a folder's name (`lock`), that package in every line
 * that has it; `effect3/<folder>` or `effect4/<folder>`, that line's only.
 */
export const select = (
  packages: ReadonlyArray<PublicPackage>,
  placeholders: ReadonlyArray<string>,
  requested: ReadonlyArray<string>
): ReadonlyArray<PublicPackage> => {
  if (requested.length === 0) return packages
  const matches = (request: string, p: PublicPackage) => {
    const [line, folder] = request.includes("/") ? request.split("/", 2) : [undefined, request]
    return p.folder === folder && (line === undefined || p.line === line)
  }
  const unknown = requested.filter((request) =>
    !packages.some((p) => matches(request, p)) &&
    !placeholders.some((folder) => request === folder || request === `effect4/${folder}`)
  )
  if (unknown.length > 0) {
    const known = packages.map((p) => p.line === "shared" ? p.folder : `${p.line}/${p.folder}`)
    throw new Error(`not a public package: ${unknown.join(", ")} (one of ${known.join(", ")}, or a folder's name)`)
  }
  return packages.filter((p) => requested.some((request) => matches(request, p)))
}
