import { describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { major } from "./effectLine.js"

const here = Path.dirname(fileURLToPath(import.meta.url))
const source = Path.resolve(here, "..", "src")
const project = Path.resolve(here, "..", "..", "..")

/** Every module of `effect` the sources import, e.g. "effect/Effect". */
const effectModules = (): ReadonlyArray<string> => {
  const modules = new Set<string>()
  for (const file of Fs.readdirSync(source, { recursive: true, encoding: "utf8" })) {
    // A module's Effect 4 version sits beside it on the Effect 3 line, which leaves it out.
    if (!file.endsWith(".ts") || file.endsWith(".effect4.ts")) continue
    const text = Fs.readFileSync(Path.join(source, file), "utf8")
    for (const match of text.matchAll(/from "(effect(?:\/[A-Za-z]+)*)"/g)) modules.add(match[1]!)
  }
  return [...modules].sort()
}

// The Effect 4 line is a project inside the repository, whose root installs Effect 3: a module that Effect 4 lacks
// would be found there instead, by Node and by TypeScript alike, and the shell would silently run a piece of Effect 3.
describe(`the Effect ${major} line runs on Effect ${major} only`, () => {
  it(`every effect module the sources import is Effect ${major}'s own`, () => {
    const require = createRequire(Path.join(source, "index.ts"))
    const effect = Fs.realpathSync(Path.join(project, "node_modules", "effect"))
    const modules = effectModules()
    expect(modules.length).toBeGreaterThan(10)
    for (const module of modules) {
      const resolved = Fs.realpathSync(require.resolve(module))
      expect(resolved.startsWith(effect + Path.sep), `${module} resolves to ${resolved}`).toBe(true)
    }
    const { version } = JSON.parse(Fs.readFileSync(Path.join(effect, "package.json"), "utf8")) as {
      readonly version: string
    }
    expect(version.split(".")[0]).toBe(String(major))
  })

  it("the package the tests import is this line's", async () => {
    const Lock = await import("@leasehold/lock/Lock")
    // The very module of this line's sources beside the tests, not a build of it nor the other line's.
    expect(Lock).toBe(await import("../src/Lock.js"))
    expect(typeof Lock.withLock).toBe("function")
  })
})
