/**
 * Compiles the public packages the way they ship: ESM (`dist/esm`) and CommonJS (`dist/cjs`) JavaScript with source
 * maps, and declarations with declaration maps (`dist/dts`). The maps point at `src/`, which ships too.
 *
 *   npm run build                  every public package, in dependency order
 *   npm run build -- lock testing  only these
 *
 * Declarations come from `tsc` with each package's `tsconfig.build.json`, which resolves sibling packages through
 * their compiled declarations (as an installed app does), so packages build after the ones they import. JavaScript
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
import { fileURLToPath } from "node:url"
import * as CliBundle from "../packages/cli/tools/bundle.js"
import { publicPackages } from "./publicPackages.js"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")

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

const build = async (name: string) => {
  const packageDirectory = Path.join(root, "packages", name)
  const dist = Path.join(packageDirectory, "dist")
  const started = performance.now()
  Fs.rmSync(dist, { recursive: true, force: true })
  if (name === "cli") {
    await CliBundle.bundle()
    console.log(`built @leasehold/${name} in ${((performance.now() - started) / 1000).toFixed(1)} s`)
    return
  }
  execFileSync(process.execPath, [tsc, "-p", Path.join(packageDirectory, "tsconfig.build.json")], { stdio: "inherit" })
  await Promise.all([javascript(packageDirectory, "esm"), javascript(packageDirectory, "cjs")])
  // Declarations read as CommonJS serve both `import` and `require` callers, as Effect's own packages' do.
  markCommonJs(Path.join(dist, "cjs"))
  markCommonJs(Path.join(dist, "dts"))
  console.log(`built @leasehold/${name} in ${((performance.now() - started) / 1000).toFixed(1)} s`)
}

const main = async () => {
  const requested = process.argv.slice(2)
  const unknown = requested.filter((name) => !(publicPackages as ReadonlyArray<string>).includes(name))
  if (unknown.length > 0) {
    throw new Error(`not a public package: ${unknown.join(", ")} (one of ${publicPackages.join(", ")})`)
  }
  for (const name of publicPackages) {
    if (requested.length === 0 || requested.includes(name)) await build(name)
  }
}

await main()
