/**
 * Every ```ts block of the site's written pages (and of the README) type-checks, as the README's do in the package check: each block is a
 * module of its own (the README's extraction rules, `scripts/packageCheck/snippets.ts`: ```ts no-check marks code for
 * other tools), in a strict TypeScript app, under `moduleResolution` `nodenext` and `bundler`. Here the packages
 * resolve to their sources (the `@leasehold/source` condition), so the check needs no build. The API reference's
 * examples are checked, and run, by docgen.
 *
 * The pages serve both Effect lines. A plain ```ts block must compile on both: against the Effect 3 line (the
 * repository's packages and effect 3) and against the Effect 4 line (checked from inside `effect4/`, where `effect`
 * and `@leasehold/*` resolve to the Effect 4 project's). Where Effect's own API differs, a page shows the code once
 * per line, as a VitePress code group of ```ts [Effect 4] and ```ts [Effect 3] blocks, each checked on its line only.
 */
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { snippets } from "../../scripts/packageCheck/snippets.js"
import { repositoryRoot, siteRoot, sourceRoot } from "./paths.js"

/** The Effect lines, each with the folder its blocks are checked in and the TypeScript that checks them. */
const lines = [
  {
    name: "Effect 3",
    scratch: Path.join(siteRoot, ".snippets"),
    tsc: Path.join(repositoryRoot, "node_modules", "typescript", "bin", "tsc")
  },
  {
    name: "Effect 4",
    scratch: Path.join(repositoryRoot, "effect4", "build", "site-snippets"),
    tsc: Path.join(repositoryRoot, "effect4", "node_modules", "typescript", "bin", "tsc")
  }
] as const

type Line = (typeof lines)[number]

/** The blocks of one line's code groups: ```ts [Effect 4] and the like, numbered in page order. */
const lineSnippets = (markdown: string, line: Line): ReadonlyArray<{ readonly file: string; readonly code: string }> =>
  Array.from(
    markdown.matchAll(new RegExp("^```ts \\[" + line.name + "\\]\\n([\\s\\S]*?)^```$", "gm")),
    (match, index) => ({
      file: `${line.name.replace(" ", "").toLowerCase()}-${String(index + 1).padStart(2, "0")}.ts`,
      // As in `snippets`: a block without imports or exports would share one scope with the others.
      code: /^\s*(import|export)\s/m.test(match[1]!) ? match[1]! : `${match[1]!}\nexport {}\n`
    })
  )

/**
 * The site's written pages (not the generated ones), relative to its source folder, and the repository's README,
 * whose blocks the package check also type-checks against the packed packages.
 */
const writtenPages = (): ReadonlyArray<string> => [
  "../../README.md",
  "index.md",
  ...Fs.readdirSync(Path.join(sourceRoot, "guide")).filter((file) => file.endsWith(".md")).sort().map((file) =>
    `guide/${file}`
  )
]

const typeCheck = (line: Line, resolution: "nodenext" | "bundler", files: ReadonlyArray<string>): void => {
  const directory = Path.join(line.scratch, resolution)
  const config = {
    compilerOptions: {
      target: "ES2022",
      lib: ["ES2022"],
      module: resolution === "nodenext" ? "nodenext" : "preserve",
      moduleResolution: resolution,
      customConditions: ["@leasehold/source"],
      types: ["node"],
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      noEmit: true,
      skipLibCheck: true
    },
    files: files.map((file) => Path.join("..", file))
  }
  Fs.mkdirSync(directory, { recursive: true })
  Fs.writeFileSync(Path.join(directory, "tsconfig.json"), JSON.stringify(config, null, 2))
  try {
    execFileSync(process.execPath, [line.tsc, "-p", directory], { cwd: siteRoot, encoding: "utf8" })
  } catch (error) {
    const output = (error as { stdout?: string }).stdout ?? String(error)
    throw new Error(
      `the site's ts blocks do not type-check on the ${line.name} line under moduleResolution ${resolution}:\n${output}`
    )
  }
}

/** Writes the blocks one line checks into its scratch folder; returns their file names. */
const writeBlocks = (line: Line): Array<string> => {
  Fs.rmSync(line.scratch, { recursive: true, force: true })
  Fs.mkdirSync(line.scratch, { recursive: true })
  // A package.json of their own makes the blocks ES modules under nodenext, as in an app with "type": "module".
  Fs.writeFileSync(Path.join(line.scratch, "package.json"), JSON.stringify({ type: "module", private: true }))
  const files: Array<string> = []
  for (const page of writtenPages()) {
    const markdown = Fs.readFileSync(Path.join(sourceRoot, page), "utf8")
    const name = page.replace(/^(\.\.\/)+/, "").replace(/\.md$/, "").replace(/\//g, "-")
    const blocks = [...snippets(markdown), ...lineSnippets(markdown, line)]
    for (const snippet of blocks) {
      const file = `${name}-${snippet.file.replace(/^readme-/, "")}`
      Fs.writeFileSync(Path.join(line.scratch, file), snippet.code)
      files.push(file)
    }
  }
  return files
}

const main = (): void => {
  const started = performance.now()
  const counts: Array<string> = []
  for (const line of lines) {
    const files = writeBlocks(line)
    for (const resolution of ["nodenext", "bundler"] as const) typeCheck(line, resolution, files)
    counts.push(`${files.length} on the ${line.name} line`)
  }
  console.log(
    `site: the ts blocks of ${writtenPages().length} pages type-check under nodenext and bundler, ` +
      `${counts.join(", ")} (${((performance.now() - started) / 1000).toFixed(1)} s)`
  )
}

try {
  main()
} catch (error) {
  console.error(error instanceof Error ? error.message : error)
  process.exitCode = 1
}
