import { describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const here = Path.dirname(fileURLToPath(import.meta.url))
const project = Path.resolve(here, "..", "..", "..")
const linePackages = Path.join(project, "packages")
const effect3Packages = Path.resolve(project, "..", "packages")

/** Folders that hold what tools write or install, never a package's own files. */
const generated = new Set(["node_modules", "dist", "build", "docs"])

/**
 * Every symbolic link among the line's package files, relative to `effect4/packages`, e.g. "lock/src/Lease.ts": the
 * modules whose code is the same on both majors, which the Effect 3 line's packages hold.
 */
const links = (folder = ""): ReadonlyArray<string> =>
  Fs.readdirSync(Path.join(linePackages, folder), { withFileTypes: true }).flatMap((entry) => {
    const file = Path.join(folder, entry.name)
    if (entry.isSymbolicLink()) return [file]
    return entry.isDirectory() && !generated.has(entry.name) ? links(file) : []
  })

describe("the modules the Effect 4 line shares with the Effect 3 line", () => {
  it("each is a relative link to its twin, the file of the same path in the Effect 3 line's package", () => {
    const linked = links()
    expect(linked.length).toBeGreaterThan(0)
    for (const file of linked) {
      const link = Path.join(linePackages, file)
      const target = Fs.readlinkSync(link)
      expect(Path.isAbsolute(target), `${file} -> ${target} is absolute`).toBe(false)
      expect(Path.resolve(Path.dirname(link), target), `${file} -> ${target}`).toBe(Path.join(effect3Packages, file))
      // A dangling link is a broken build that TypeScript does not report unless something imports the module.
      const stat = Fs.lstatSync(Path.join(effect3Packages, file), { throwIfNoEntry: false })
      expect(stat?.isFile(), `${file} -> ${target}: the target is missing or not a file`).toBe(true)
    }
  })

  // Effect 3 keeps its global values in `globalThis["effect/GlobalValue"]` from the first module of it that loads;
  // Effect 4 has no such store. A linked module read at its target would import Effect 3 and its Effect 3 siblings.
  it("each is read where its link stands: importing every linked module loads no Effect 3", async () => {
    const modules = links().filter((file) => file.split(Path.sep)[1] === "src")
    expect(modules.length).toBeGreaterThan(10)
    for (const file of modules) await import(Path.join(linePackages, file))
    expect(Object.hasOwn(globalThis, "effect/GlobalValue")).toBe(false)
  })
})
