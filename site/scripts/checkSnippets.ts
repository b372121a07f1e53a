/**
 * Every ```ts block of the site's written pages (and of the README) type-checks, as the README's do in the package check: each block is a
 * module of its own (the README's extraction rules, `scripts/packageCheck/snippets.ts`: ```ts no-check marks code for
 * other tools), in a strict TypeScript app, under `moduleResolution` `nodenext` and `bundler`. Here the packages
 * resolve to their sources (the `@leasehold/source` condition), so the check needs no build. The API reference's
 * examples are checked, and run, by docgen.
 */
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { snippets } from "../../scripts/packageCheck/snippets.js"
import { repositoryRoot, siteRoot, sourceRoot } from "./paths.js"

const scratch = Path.join(siteRoot, ".snippets")

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

const typeCheck = (resolution: "nodenext" | "bundler", files: ReadonlyArray<string>): void => {
  const directory = Path.join(scratch, resolution)
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
  const tsc = Path.join(repositoryRoot, "node_modules", "typescript", "bin", "tsc")
  try {
    execFileSync(process.execPath, [tsc, "-p", directory], { cwd: siteRoot, encoding: "utf8" })
  } catch (error) {
    const output = (error as { stdout?: string }).stdout ?? String(error)
    throw new Error(`the site's ts blocks do not type-check under moduleResolution ${resolution}:\n${output}`)
  }
}

const main = (): void => {
  const started = performance.now()
  Fs.rmSync(scratch, { recursive: true, force: true })
  Fs.mkdirSync(scratch, { recursive: true })
  // A package.json of their own makes the blocks ES modules under nodenext, as in an app with "type": "module".
  Fs.writeFileSync(Path.join(scratch, "package.json"), JSON.stringify({ type: "module", private: true }))
  const files: Array<string> = []
  for (const page of writtenPages()) {
    const markdown = Fs.readFileSync(Path.join(sourceRoot, page), "utf8")
    for (const snippet of snippets(markdown)) {
      const name = page.replace(/^(\.\.\/)+/, "").replace(/\.md$/, "").replace(/\//g, "-")
      const file = `${name}-${snippet.file.replace(/^readme-/, "")}`
      Fs.writeFileSync(Path.join(scratch, file), snippet.code)
      files.push(file)
    }
  }
  for (const resolution of ["nodenext", "bundler"] as const) typeCheck(resolution, files)
  console.log(
    `site: ${files.length} ts blocks of ${writtenPages().length} pages type-check under nodenext and bundler ` +
      `(${((performance.now() - started) / 1000).toFixed(1)} s)`
  )
}

try {
  main()
} catch (error) {
  console.error(error instanceof Error ? error.message : error)
  process.exitCode = 1
}
