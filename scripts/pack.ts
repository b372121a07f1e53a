/**
 * Builds and packs every publishable package of both Effect lines into one folder, as npm would publish them:
 *
 *   npm run pack -- <folder>
 *
 * In build order: the core (once: both lines depend on the same version), the Effect 3 line, the Effect 4 line, the
 * CLI. It prints each tarball's file name. Both lines publish the same names, and npm names a tarball after the name
 * and version only, so the two lines' tarballs sit side by side as long as their versions differ (the Effect 3 line
 * is 1.x, the Effect 4 line 2.x); two packages that would write one file stop it before it packs anything.
 * A `private` package of the line's is packed (packing is not publishing), and the list marks it.
 */
import * as Path from "node:path"
import { build } from "./build.js"
import { pack } from "./packageCheck/packing.js"
import { CheckFailed } from "./packageCheck/run.js"

const main = async () => {
  const [destination, ...rest] = process.argv.slice(2)
  if (destination === undefined || rest.length > 0) {
    console.error("usage: npm run pack -- <folder>   (builds, then packs every public package into <folder>)")
    process.exitCode = 2
    return
  }
  const folder = Path.resolve(process.env.INIT_CWD ?? process.cwd(), destination)
  const packages = await build([])
  const packed = pack(packages, folder)
  console.log(`\npacked ${packed.length} packages into ${folder}:`)
  for (const p of packed) {
    console.log(`  ${Path.basename(p.tarball).padEnd(32)} ${p.package.label}${p.package.private ? ", private" : ""}`)
  }
}

try {
  await main()
} catch (error) {
  if (!(error instanceof CheckFailed)) throw error
  console.error(`pack failed: ${error.message}`)
  process.exitCode = 1
}
