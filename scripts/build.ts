/**
 * Compiles the public packages the way they ship: ESM (`dist/esm`) and CommonJS (`dist/cjs`) JavaScript with source
 * maps, and declarations with declaration maps (`dist/dts`). The maps point at `src/`, which ships too.
 *
 *   npm run build                          every public package of both Effect lines, in dependency order
 *   npm run build -- lock testing          only these, in every line that has them
 *   npm run build -- effect4/lock core     only the Effect 4 line's lock, and the core
 *
 * The order: the core, the Effect 3 line (`packages/`), the Effect 4 line (`effect4/packages/*`, a package after the
 * ones it imports; its private bench workers are not built), the CLI.
 *
 * Declarations come from `tsc` with each package's `tsconfig.build.json`, which resolves sibling packages through
 * their compiled declarations (as an installed app does), so packages build after the ones they import. The Effect 4
 * line's come from the Effect 4 project's own TypeScript, against its effect (`effect4/node_modules`). JavaScript
 * comes from esbuild, one output file per source file.
 *
 * The CLI is an application, not a library: it ships as one bundle with everything it runs inside
 * (`packages/cli/tools/bundle.ts`).
 */
import * as Esbuild from "esbuild"
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"
import * as CliBundle from "../packages/cli/tools/bundle.js"
import { assemble } from "./effect4Sources.js"
import { allPackages, effect4Project, type PublicPackage, select } from "./publicPackages.js"

/** Each line's TypeScript: the repository's for the core and the Effect 3 line, the Effect 4 project's for its own. */
const tsc = {
  shared: createRequire(import.meta.url).resolve("typescript/bin/tsc"),
  effect3: createRequire(import.meta.url).resolve("typescript/bin/tsc"),
  effect4: Path.join(effect4Project, "node_modules", "typescript", "bin", "tsc")
} as const

const sourceFiles = (directory: string): Array<string> =>
  Fs.readdirSync(directory, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
    .map((file) => Path.join(directory, file))

const javascript = (packageDirectory: string, format: "esm" | "cjs") =>
  Esbuild.build({
    entryPoints: sourceFiles(Path.join(packageDirectory, "src")),
    outbase: Path.join(packageDirectory, "src"),
    outdir: Path.join(packageDirectory, "dist", format),
    format,
    platform: "node",
    target: "node20",
    sourcemap: true,
    // The sources ship next to dist/, so the maps reference them instead of embedding them.
    sourcesContent: false,
    logLevel: "warning",
    ...(format === "cjs" ?
      {
        // CommonJS has no `import.meta`; the few modules that locate files relative to themselves get the same URL
        // from `__filename`.
        define: { "import.meta.url": "__leaseholdImportMetaUrl" },
        banner: { js: "const __leaseholdImportMetaUrl = require(\"node:url\").pathToFileURL(__filename).href;" }
      } :
      {})
  })

/** A `package.json` that makes Node and TypeScript read the files under it as CommonJS. */
const markCommonJs = (directory: string) =>
  Fs.writeFileSync(Path.join(directory, "package.json"), JSON.stringify({ type: "commonjs" }, null, 2) + "\n")

const buildOne = async (p: PublicPackage) => {
  const dist = Path.join(p.directory, "dist")
  const started = performance.now()
  Fs.rmSync(dist, { recursive: true, force: true })
  if (p.line === "shared" && p.folder === "cli") {
    await CliBundle.bundle()
  } else {
    execFileSync(process.execPath, [tsc[p.line], "-p", Path.join(p.directory, "tsconfig.build.json")], {
      stdio: "inherit"
    })
    await Promise.all([javascript(p.directory, "esm"), javascript(p.directory, "cjs")])
    // Declarations read as CommonJS serve both `import` and `require` callers, as Effect's own packages' do.
    markCommonJs(Path.join(dist, "cjs"))
    markCommonJs(Path.join(dist, "dts"))
  }
  console.log(`built ${p.label} ${p.version} in ${((performance.now() - started) / 1000).toFixed(1)} s`)
}

/** Builds the packages `requested` names (see `select`), or all of them; returns the ones it built. */
export const build = async (requested: ReadonlyArray<string>): Promise<ReadonlyArray<PublicPackage>> => {
  const selected = select(allPackages(), requested)
  if (selected.some((p) => p.line === "effect4") && !Fs.existsSync(tsc.effect4)) {
    throw new Error(
      "effect4/node_modules is missing: run `npm ci` at the repository's root (its postinstall installs the Effect 4 " +
        "project), or build without the Effect 4 line (`npm run build -- core effect3/lock ...`)"
    )
  }
  if (selected.some((p) => p.line === "effect4")) assemble()
  for (const p of selected) await buildOne(p)
  return selected
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(Path.resolve(process.argv[1])).href) {
  await build(process.argv.slice(2))
}
