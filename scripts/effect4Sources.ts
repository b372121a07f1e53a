/**
 * The Effect 4 line's sources, assembled from the one source of each module.
 *
 * Every shell module and test is written once, in `packages/<package>/`, and compiled and tested for each Effect
 * major. The Effect 3 line reads those files where they stand. The Effect 4 line is an npm project of its own
 * (`effect4/`, with effect 4 in its `node_modules`), and a module's bare imports (`effect/Effect`) resolve from where
 * the file is, so its packages get their `src/`, `test/` and `bin/` as copies of the one source, made here, never
 * committed (`effect4/.gitignore`), and read-only, so that an edit goes to the source.
 *
 * What differs between the majors is a file of its own beside the one it replaces: `X.effect4.ts` is the Effect 4
 * line's `X.ts` (or a module only that line has). The Effect 3 line leaves every `*.effect4.ts` out.
 *
 *   node --import tsx scripts/effect4Sources.ts    assembles them (the root's `postinstall`, `npm run test:effect4`,
 *                                                  `docs:effect4`, `build` and `check:safety:effect4` do it first)
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")

/** The suffix of a module's Effect 4 version, in place of `.ts`. */
export const effect4Suffix = ".effect4.ts"

/**
 * What each Effect 4 package takes from its package in `packages/`: whole folders, but for what only the Effect 3
 * line has, or a list of files (the bench's and the demo's workers: the bench itself and the demo's parent run on the
 * repository's own line).
 */
interface LinePackage {
  readonly name: string
  readonly folders: ReadonlyArray<string>
  /** Files of those folders that only the Effect 3 line has. */
  readonly effect3Only?: ReadonlyArray<string>
  /** Only these files (with their Effect 4 versions), instead of whole folders. */
  readonly files?: ReadonlyArray<string>
}

const linePackages: ReadonlyArray<LinePackage> = [
  // The README's examples are checked against the Effect 3 line's install commands and output.
  { name: "lock", folders: ["src", "test"], effect3Only: ["test/readme.test.ts"] },
  { name: "dynamodb", folders: ["src", "test"] },
  { name: "testing", folders: ["src", "test", "bin"] },
  {
    name: "bench",
    folders: ["src"],
    files: [
      "src/Contender.ts",
      "src/ContentionDriver.ts",
      "src/ContentionLoop.ts",
      "src/MemoryCycle.ts",
      "src/Protocol.ts",
      "src/SectionRecord.ts",
      "src/Stats.ts",
      "src/contenders/Leasehold.ts",
      "src/effectLine.ts",
      "src/lineWorker.ts",
      "src/scaleWorker.ts",
      "src/worker.ts"
    ]
  },
  {
    // The demo's workers and its end-to-end run with them (`npm run demo -- --effect 4`): its parent is the same for
    // both lines and runs on the repository's own.
    name: "demo",
    folders: ["src", "test"],
    files: [
      "src/Ledger.ts",
      "src/Protocol.ts",
      "src/Worker.ts",
      "src/effectLine.ts",
      "test/demo.test.ts",
      "test/effectLine.ts",
      "test/runDemo.ts"
    ]
  }
]

const filesUnder = (directory: string): Array<string> =>
  Fs.existsSync(directory)
    ? Fs.readdirSync(directory, { recursive: true, encoding: "utf8" })
      .filter((file) => Fs.statSync(Path.join(directory, file)).isFile())
      .map((file) => file.split(Path.sep).join("/"))
    : []

/** The Effect 4 line's path of `file`: its Effect 4 version names the module it replaces. */
const effect4Name = (file: string): string =>
  file.endsWith(effect4Suffix) ? file.slice(0, -effect4Suffix.length) + ".ts" : file

/**
 * The files of `p` on the Effect 4 line, each with the source it is copied from: a module's Effect 4 version where it
 * has one, else the module itself.
 */
const sourcesOf = (p: LinePackage): Map<string, string> => {
  const from = Path.join(root, "packages", p.name)
  const all = p.folders.flatMap((folder) => filesUnder(Path.join(from, folder)).map((file) => `${folder}/${file}`))
  const sources = new Map<string, string>()
  const wanted = p.files === undefined ? undefined : new Set(p.files)
  const skipped = new Set(p.effect3Only ?? [])
  // Modules first, their Effect 4 versions over them.
  for (const file of [...all].sort((a, b) => Number(a.endsWith(effect4Suffix)) - Number(b.endsWith(effect4Suffix)))) {
    const target = effect4Name(file)
    if (skipped.has(target) || (wanted !== undefined && !wanted.has(target))) continue
    sources.set(target, Path.join(from, file))
  }
  return sources
}

/** Writes `content` read-only at `target` unless it is there already: a whole new file renamed into place, so that
 * two assemblies at once (two test runs) never see half a file. */
const writeReadOnly = (target: string, content: Buffer): boolean => {
  const existing = Fs.existsSync(target) ? Fs.readFileSync(target) : undefined
  if (existing !== undefined && existing.equals(content)) return false
  Fs.mkdirSync(Path.dirname(target), { recursive: true })
  const scratch = `${target}.${process.pid}.tmp`
  Fs.writeFileSync(scratch, content, { mode: 0o444 })
  Fs.renameSync(scratch, target)
  return true
}

/**
 * Brings the Effect 4 line's copies up to date: writes what changed (so that incremental builds stay incremental),
 * removes what no longer has a source. Returns how many files it wrote and removed.
 */
export const assemble = (): { readonly written: number; readonly removed: number } => {
  let written = 0
  let removed = 0
  for (const p of linePackages) {
    const to = Path.join(root, "effect4", "packages", p.name)
    const sources = sourcesOf(p)
    for (const [file, source] of sources) {
      if (writeReadOnly(Path.join(to, file), Fs.readFileSync(source))) written++
    }
    for (const folder of p.folders) {
      for (const file of filesUnder(Path.join(to, folder))) {
        if (sources.has(`${folder}/${file}`)) continue
        // Another assembly's file on its way into place is not stale.
        if (file.endsWith(".tmp")) continue
        Fs.rmSync(Path.join(to, folder, file), { force: true })
        removed++
      }
    }
  }
  return { written, removed }
}

if (process.argv[1] !== undefined && Path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { removed, written } = assemble()
  console.log(`effect4 sources: ${written} written, ${removed} removed`)
}
