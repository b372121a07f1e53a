// The output the site shows is what its programs print: a ```text block after a program is that program's output,
// and each such program runs here, as a reader would run it, on this line of Effect, and prints exactly that block.
import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { major } from "./effectLine.js"

const here = Path.dirname(fileURLToPath(import.meta.url))
const line = `Effect ${major}`
/** The first pages a reader meets, which show what their first programs print. */
const firstPages = ["index.md", "guide/getting-started.md"]

/** The repository's root: the Effect 4 line runs a copy of this file from one folder further down. */
const repository = (): string => {
  for (let folder = here; folder !== Path.dirname(folder); folder = Path.dirname(folder)) {
    if (Fs.existsSync(Path.join(folder, "site", "src", "index.md"))) return folder
  }
  throw new Error(`no site/src above ${here}`)
}

/** The programs run from the package's own build folder, so that `effect` and `@leasehold/lock` are this line's. */
const scratch = Path.resolve(here, "..", "build", "site-output")

interface Shown {
  readonly program: { readonly language: "js" | "ts"; readonly code: string }
  readonly output: string
}

/**
 * Each ```text block of a page, with the program whose output it shows: the last block before it that this line
 * runs (a ```js or ```ts block, or this line's block of a code group, ```ts [Effect 4]). Any other block between them
 * (a shell command, say) ends the pairing: the output is then not the program's.
 */
const shownOutputs = (markdown: string): Array<Shown> => {
  const shown: Array<Shown> = []
  let program: Shown["program"] | undefined
  for (const [, info, code] of markdown.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)) {
    const language = info!.trim()
    if (language === "text") {
      if (program !== undefined) shown.push({ program, output: code! })
      program = undefined
    } else if (language === "js" || language === "ts" || language === `ts [${line}]`) {
      program = { language: language === "js" ? "js" : "ts", code: code! }
    } else if (!/^ts \[Effect \d\]$/.test(language)) {
      program = undefined
    }
  }
  return shown
}

const run = promisify(execFile)

/** The site's written pages, relative to its source folder. */
const pages = (): Array<string> => {
  const source = Path.join(repository(), "site", "src")
  const guides = Fs.readdirSync(Path.join(source, "guide")).filter((file) => file.endsWith(".md")).sort()
  return ["index.md", ...guides.map((file) => `guide/${file}`)]
}

describe(`the output the site shows is what its programs print on ${line}`, () => {
  for (const page of pages()) {
    const name = page.replace(/\.md$/, "").replace(/\//g, "-")
    const markdown = Fs.readFileSync(Path.join(repository(), "site", "src", page), "utf8")
    const shown = shownOutputs(markdown)

    if (firstPages.includes(page)) {
      it(`${page} shows the output of a program`, () => {
        expect(shown.length).toBeGreaterThan(0)
      })
    }

    shown.forEach(({ output, program }, index) => {
      // Each program waits a second or two in real time; a busy machine may start it slowly.
      it(`${page}: program ${index + 1} prints what the page shows`, { timeout: 60_000 }, async () => {
        Fs.mkdirSync(scratch, { recursive: true })
        const file = Path.join(scratch, `${name}-${index + 1}.${program.language === "js" ? "mjs" : "ts"}`)
        Fs.writeFileSync(file, program.code)
        const printed = await run(process.execPath, ["--conditions=@leasehold/source", "--import", "tsx", file], {
          cwd: scratch,
          encoding: "utf8"
        })
        expect(printed.stdout).toBe(output)
        expect(printed.stderr).toBe("")
      })
    })
  }
})
