/**
 * The package check's fresh apps, for both Effect lines: installing into one, what is installed in it, running its
 * smoke programs, and type-checking README snippets in it.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { check, npm, run, writeJson } from "./run.js"
import type { Snippet } from "./snippets.js"

const here = Path.dirname(fileURLToPath(import.meta.url))

/**
 * A fresh app with `dependencies` installed: each a version, a tarball (an absolute path), or `""` for none (what
 * `npm i <name>` picks).
 */
export const makeApp = (directory: string, dependencies: Record<string, string>): void => {
  Fs.mkdirSync(directory, { recursive: true })
  writeJson(Path.join(directory, "package.json"), { name: Path.basename(directory), private: true, type: "module" })
  addToApp(directory, dependencies)
}

/** `npm install` of more dependencies into an app (see `makeApp`). */
export const addToApp = (directory: string, dependencies: Record<string, string>): void => {
  npm(["install", "--prefer-offline", ...specs(dependencies)], directory, `install into ${directory}`)
}

export const specs = (dependencies: Record<string, string>): ReadonlyArray<string> =>
  Object.entries(dependencies).map(([name, spec]) =>
    spec.startsWith("/") ? spec : spec === "" ? name : `${name}@${spec}`
  )

/** Every installed copy of `name` in an app, found on disk (npm's own listing hides copies it considers deduped). */
export const installedCopies = (app: string, name: string): ReadonlyArray<string> => {
  const copies: Array<string> = []
  const visit = (modules: string) => {
    if (!Fs.existsSync(modules)) return
    if (Fs.existsSync(Path.join(modules, name, "package.json"))) copies.push(Path.join(modules, name))
    for (const entry of Fs.readdirSync(modules)) {
      const scoped = entry.startsWith("@")
        ? Fs.readdirSync(Path.join(modules, entry)).map((e) => `${entry}/${e}`)
        : [entry]
      for (const dependency of scoped) visit(Path.join(modules, dependency, "node_modules"))
    }
  }
  visit(Path.join(app, "node_modules"))
  return copies
}

export const installedVersion = (app: string, name: string): string =>
  (JSON.parse(Fs.readFileSync(Path.join(app, "node_modules", name, "package.json"), "utf8")) as { version: string })
    .version

/** Fails unless the app holds exactly one copy of each of `names`. */
export const checkOneCopy = (app: string, names: ReadonlyArray<string>, where: string): void => {
  for (const name of names) {
    const copies = installedCopies(app, name)
    check(copies.length === 1, `${where}: expected one copy of ${name}, found ${copies.length}: ${copies.join(", ")}`)
  }
}

/** The stores the smoke programs can lock on: `dynalite` needs `@leasehold/dynamodb` and `@leasehold/testing`. */
export type Store = "memory" | "dynalite"

export const smokeFiles = ["smoke.mjs", "smoke.cjs"] as const

/** Puts the smoke programs (`smoke.mjs`, `smoke.cjs` and the scenario they share) into an app. */
export const copySmokePrograms = (app: string): void => {
  for (const file of ["scenario.cjs", ...smokeFiles]) Fs.copyFileSync(Path.join(here, file), Path.join(app, file))
}

export interface SmokeOutput {
  readonly format: string
  readonly node: string
  readonly memory?: [number, number]
  readonly dynalite?: [number, number]
  readonly internalImport: string
  /** ESM with dynalite only: what starting AWS DynamoDB Local gives without its optional package. */
  readonly dynamoDBLocal?: string
}

/** Runs one smoke program on `stores` under `node`, and checks what it printed. */
export const smoke = (
  app: string,
  node: string,
  file: typeof smokeFiles[number],
  stores: ReadonlyArray<Store>
): SmokeOutput => {
  const { stdout } = run(node, [file, ...stores], app, `${file} under ${node}`)
  const line = stdout.trim().split("\n").at(-1) ?? ""
  const output = JSON.parse(line) as SmokeOutput
  for (const store of stores) {
    const [first, second] = output[store] ?? []
    check(
      first !== undefined && second !== undefined && second > first,
      `${file} on ${output.node}: fences on the ${store} store do not increase: ${line}`
    )
  }
  check(
    output.internalImport === "ERR_PACKAGE_PATH_NOT_EXPORTED",
    `${file}: an internal module was importable (${output.internalImport})`
  )
  check(
    file === "smoke.cjs" || !stores.includes("dynalite") || output.dynamoDBLocal === "NotInstalled",
    `${file}: DynamoDB Local without its package gave ${output.dynamoDBLocal}, not the typed NotInstalled error`
  )
  return output
}

/**
 * README snippets as modules of a strict TypeScript app, checked under one module resolution by the `tsc` given (each
 * Effect line's own), with the `lib` given, and with `skipLibCheck` off, so that the packages' declarations are
 * checked too.
 */
export const typeCheck = (
  app: string,
  tsc: string,
  list: ReadonlyArray<Snippet>,
  resolution: "nodenext" | "bundler",
  lib: ReadonlyArray<string> = ["ES2022"]
): void => {
  const directory = Path.join(app, `types-${resolution}`)
  Fs.mkdirSync(directory, { recursive: true })
  for (const snippet of list) Fs.writeFileSync(Path.join(directory, snippet.file), snippet.code)
  writeJson(Path.join(directory, "tsconfig.json"), {
    compilerOptions: {
      target: "ES2022",
      lib,
      module: resolution === "nodenext" ? "nodenext" : "preserve",
      moduleResolution: resolution,
      types: ["node"],
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      noEmit: true,
      skipLibCheck: false
    },
    include: ["*.ts"]
  })
  run(process.execPath, [tsc, "-p", directory], app, `the README's snippets under moduleResolution ${resolution}`)
}
