/**
 * `npm pack` for the public packages of both Effect lines into one folder, and what every tarball must hold.
 *
 * Both lines publish the same names (`@leasehold/lock` is a package of each), and npm names a tarball after the
 * package's name and version only (`leasehold-lock-2.0.0.tgz`): the two lines' tarballs can share a folder only while
 * their versions differ, so packing refuses two packages that would write one file, before it writes any.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { docsHome, type Manifest, type PublicPackage, readManifest, root } from "../publicPackages.js"
import { check, npm } from "./run.js"

export interface Packed {
  readonly package: PublicPackage
  readonly manifest: Manifest
  readonly tarball: string
  readonly size: number
  readonly unpackedSize: number
  readonly files: ReadonlyArray<string>
}

/** The file `npm pack` writes for a package: `@leasehold/lock` 2.0.0 is `leasehold-lock-2.0.0.tgz`. */
export const tarballName = (name: string, version: string): string =>
  `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`

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

/** How many lines of a README are its top, where a reader on npm looks for the link to the docs. */
const readmeTop = 5

const packOne = (p: PublicPackage, destination: string): Packed => {
  check(
    Fs.existsSync(Path.join(p.directory, "dist")),
    `${Path.relative(root, p.directory)}/dist is missing: run \`npm run build\` first`
  )
  const [report] = JSON.parse(
    npm(["pack", "--json", "--pack-destination", destination], p.directory, `pack ${p.label}`).stdout
  ) as Array<{ filename: string; size: number; unpackedSize: number; files: Array<{ path: string }> }>
  const files = report!.files.map((file) => file.path)
  for (const required of [...exportedFiles(p.directory), "README.md", "LICENSE"]) {
    const present = required.endsWith("/")
      ? files.some((file) => file.startsWith(required))
      : files.includes(required)
    check(present, `${p.label}'s tarball lacks ${required}`)
  }
  // Every source the maps point at must be in it; a module's Effect 4 version (`*.effect4.ts`, which the Effect 4
  // line's packages ship as the module itself) is no source of the Effect 3 line's.
  if (readManifest(p.directory).files?.includes("src") === true) {
    const sources = Fs.readdirSync(Path.join(p.directory, "src"), { recursive: true, encoding: "utf8" })
      .filter((file) => Fs.statSync(Path.join(p.directory, "src", file)).isFile() && !file.endsWith(".effect4.ts"))
      .map((file) => `src/${file.split(Path.sep).join("/")}`)
    const missing = sources.filter((file) => !files.includes(file))
    check(missing.length === 0, `${p.label}'s tarball lacks sources: ${missing.join(", ")}`)
  }
  // From npm to the docs: the package's homepage and a link near the top of its README.
  const homepage = (readManifest(p.directory) as { homepage?: string }).homepage ?? ""
  check(homepage.startsWith(docsHome), `${p.label}'s homepage is ${homepage || "missing"}, not a page of ${docsHome}`)
  const top = Fs.readFileSync(Path.join(p.directory, "README.md"), "utf8").split("\n").slice(0, readmeTop).join("\n")
  check(top.includes(`](${docsHome}`), `${p.label}'s README links to no page of ${docsHome} in its first lines`)
  const stray = files.filter((file) => /^(test|build)\/|tsconfig|vitest|\.effect4\.ts$/.test(file))
  check(stray.length === 0, `${p.label}'s tarball ships what users do not need: ${stray.join(", ")}`)
  check(
    report!.filename === tarballName(p.name, p.version),
    `${p.label} packed to ${report!.filename}, not ${tarballName(p.name, p.version)}`
  )
  return {
    package: p,
    manifest: readManifest(p.directory),
    tarball: Path.join(destination, report!.filename),
    size: report!.size,
    unpackedSize: report!.unpackedSize,
    files
  }
}

/** Packs the packages, in their order, into `destination`; refuses before packing when two would share a file. */
export const pack = (packages: ReadonlyArray<PublicPackage>, destination: string): ReadonlyArray<Packed> => {
  const byFile = new Map<string, Array<string>>()
  for (const p of packages) {
    const file = tarballName(p.name, p.version)
    byFile.set(file, [...(byFile.get(file) ?? []), `${p.label} ${p.version}`])
  }
  const shared = [...byFile].filter(([, labels]) => labels.length > 1)
  check(
    shared.length === 0,
    `packages that would overwrite each other's tarball: ${
      shared.map(([file, labels]) => `${labels.join(" and ")} (${file})`).join("; ")
    }; the two lines' packages of one name must differ in version`
  )
  Fs.mkdirSync(destination, { recursive: true })
  return packages.map((p) => packOne(p, destination))
}
