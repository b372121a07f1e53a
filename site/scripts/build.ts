/**
 * `npm run site`: checks that no written page types a measurement, generates the API reference from docgen's output,
 * the charts and the benchmarks page from BENCHMARKS.md, then builds the static site into `site/dist`, which works
 * from any local web server; the pages' measured numbers are put in from BENCHMARKS.md as they are rendered.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { build } from "vitepress"
import { writeApiPages } from "./apiPages.js"
import { measuredPart } from "./benchValues.js"
import { writeCharts } from "./charts.js"
import { checkPages } from "./measurementCheck.js"
import { distRoot, repositoryRoot, repositoryUrl, sourceRoot } from "./paths.js"

/**
 * BENCHMARKS.md as a page of the site, as `npm run bench` wrote it: the tables of the run. The hand-written reading
 * that the bench appends (packages/bench/FINDINGS.md) quotes numbers of this and earlier runs by hand, so it is linked,
 * not shown: every number on the site is the run's.
 */
const writeBenchmarksPage = (): void => {
  const markdown = measuredPart(Fs.readFileSync(Path.join(repositoryRoot, "BENCHMARKS.md"), "utf8"))
  const note = "This page is BENCHMARKS.md as `npm run bench` wrote it; the [performance guide](/guide/performance) " +
    "draws its charts from these tables.\n"
  const findings = "\n## Reading the numbers\n\nWhat the numbers mean, where the targets are missed and what was " +
    `tried is written by hand in [packages/bench/FINDINGS.md](${repositoryUrl}/blob/main/packages/bench/FINDINGS.md), ` +
    "which BENCHMARKS.md ends with. It quotes runs by hand, so it is not on this site, whose numbers all come from " +
    "the run above.\n"
  Fs.writeFileSync(
    Path.join(sourceRoot, "benchmarks.md"),
    markdown.trimEnd().replace(/^(# .*\n)/, `$1\n${note}`).replace(/\{\{/g, "&#123;&#123;") + "\n" + findings
  )
}

const started = performance.now()
// Before anything is generated: a written page states no measurement of its own.
const checked = checkPages(sourceRoot, ["api", "benchmarks.md"])
const lines = writeApiPages()
writeCharts()
writeBenchmarksPage()
Fs.rmSync(distRoot, { recursive: true, force: true })
await build(sourceRoot)
const reference = lines.map((line) => {
  const modules = line.packages.reduce((sum, pkg) => sum + pkg.modules.length, 0)
  return `${line.title}: ${modules} API modules of ${line.packages.length} packages`
}).join("; ")
console.log(
  `site: built into ${Path.relative(repositoryRoot, distRoot)} (${reference}; ${checked} written pages state no ` +
    `measurement by hand) in ` +
    `${((performance.now() - started) / 1000).toFixed(1)} s`
)
