/**
 * Where the site's inputs and outputs live, from this folder: the repository's sources go in, `site/dist` comes out.
 */
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

/** The `site` folder. */
export const siteRoot = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")

/** The repository's root. */
export const repositoryRoot = Path.resolve(siteRoot, "..")

/** VitePress's source folder: the written pages, and the generated ones beside them. */
export const sourceRoot = Path.join(siteRoot, "src")

/** The built site. */
export const distRoot = Path.join(siteRoot, "dist")

/** The generated API reference, one folder per package (ignored by git). */
export const apiRoot = Path.join(sourceRoot, "api")

/** Charts drawn from BENCHMARKS.md at build time (ignored by git). */
export const chartsRoot = Path.join(sourceRoot, "public", "charts")

/** The repository on GitHub, for links to files that are not pages of the site. */
export const repositoryUrl = "https://github.com/leasehold/leasehold"
