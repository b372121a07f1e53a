/**
 * The CLI's bundle: `dist/leasehold.js` and its chunks, with Effect, @effect/cli, the Leasehold packages, the AWS SDK
 * and dynalite inside, so that the package has no dependencies and works beside any Effect an app holds (or none).
 *
 * What is not needed on every start is a chunk of its own that the CLI imports when a command needs it: the SDK with
 * the DynamoDB store (any command that talks to a table), and dynalite (`--local` only). `--help`, `--version` and
 * usage errors load Effect and @effect/cli only.
 *
 * The licences of everything inside go to `THIRD_PARTY_LICENSES.md` beside the bundle.
 */
import * as Esbuild from "esbuild"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

/**
 * dynalite loads `level` (LevelDB on disk, a native addon) for its on-disk mode; `--local` runs it in memory only.
 */
const noDiskStorage: Esbuild.Plugin = {
  name: "leasehold-no-disk-storage",
  setup(build) {
    build.onResolve({ filter: /^level$/ }, () => ({ path: "level", namespace: "leasehold-stub" }))
    build.onLoad({ filter: /.*/, namespace: "leasehold-stub" }, () => ({
      contents: "exports.Level = class Level {\n" +
        "  constructor() { throw new Error(\"the CLI's dynalite keeps its tables in memory only\") }\n" +
        "}\n",
      loader: "js"
    }))
  }
}

/**
 * dynalite requires its actions by a computed name without an extension (`require("./actions/" + action)`), which
 * esbuild bundles as the files that pattern can name only when the pattern ends in one.
 */
const dynaliteActions: Esbuild.Plugin = {
  name: "leasehold-dynalite-actions",
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]dynalite[\\/]index\.js$/ }, async (args) => {
      const source = await Fs.promises.readFile(args.path, "utf8")
      const contents = source.replace(
        /require\('\.\/(actions|validations)\/' \+ action\)/g,
        "require('./$1/' + action + '.js')"
      )
      if (contents === source) throw new Error("dynalite's index.js no longer requires its actions as expected")
      return { contents, loader: "js" }
    })
  }
}

/** The package directory of a bundled input under node_modules, or undefined for the repository's own sources. */
const packageOf = (input: string): string | undefined => {
  const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input)
  return match?.[1]
}

const licenceFile = (directory: string): string | undefined =>
  Fs.readdirSync(directory).find((file) => /^(licen[cs]e|copying)(\.|$)/i.test(file))

/**
 * Every bundled package with its version and licence, and each distinct licence text once, after the packages that
 * ship it (the SDK's packages share one).
 */
const thirdPartyLicences = (root: string, metafile: Esbuild.Metafile): string => {
  const directories = [...new Set(Object.keys(metafile.inputs).flatMap((input) => packageOf(input) ?? []))]
  const byText = new Map<string, Set<string>>()
  for (const directory of directories) {
    const absolute = Path.resolve(root, directory)
    const manifest = JSON.parse(Fs.readFileSync(Path.join(absolute, "package.json"), "utf8")) as {
      name: string
      version: string
      // Old manifests give `{ type }`, or a `licenses` array of them.
      license?: string | { type?: string }
      licenses?: ReadonlyArray<{ type?: string }>
    }
    const licence = typeof manifest.license === "string"
      ? manifest.license
      : manifest.license?.type ?? manifest.licenses?.map((entry) => entry.type).join(" OR ")
    const file = licenceFile(absolute)
    const text = file === undefined
      ? `(no licence file; its package.json says ${licence ?? "nothing"})`
      : Fs.readFileSync(Path.join(absolute, file), "utf8").trim()
    const names = byText.get(text) ?? new Set<string>()
    names.add(`${manifest.name} ${manifest.version} (${licence ?? "no licence field"})`)
    byText.set(text, names)
  }
  const sections = [...byText.entries()]
    .map(([text, names]) => ({ names: [...names].sort(), text }))
    .sort((a, b) => a.names[0]!.localeCompare(b.names[0]!))
    .map(({ names, text }) => `## ${names.join(", ")}\n\n\`\`\`\n${text}\n\`\`\``)
  return "# Third-party software in @leasehold/cli\n\nThe bundle in this folder contains these packages.\n\n" +
    sections.join("\n\n") + "\n"
}

const packageDirectory = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")

/**
 * Bundles the CLI into `outdir` (the package's `dist/` by default), and returns the entry point's path. The tests
 * run a bundle made here too, so that they exercise what ships.
 */
export const bundle = async (outdir: string = Path.join(packageDirectory, "dist")): Promise<string> => {
  const result = await Esbuild.build({
    absWorkingDir: packageDirectory,
    entryPoints: { leasehold: Path.join(packageDirectory, "src", "bin.ts") },
    outdir,
    chunkNames: "chunks/[name]-[hash]",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // The repository's own packages from their sources; the rest as ES modules where they ship them, which
    // esbuild can trim to what is used.
    conditions: ["@leasehold/source"],
    mainFields: ["module", "main"],
    minify: true,
    legalComments: "none",
    metafile: true,
    logLevel: "warning",
    plugins: [noDiskStorage, dynaliteActions],
    // Bundled CommonJS (dynalite, parts of the SDK) requires Node's built-in modules.
    banner: {
      js: "import { createRequire as __leaseholdCreateRequire } from \"node:module\";" +
        "const require = __leaseholdCreateRequire(import.meta.url);"
    }
  })
  Fs.writeFileSync(Path.join(outdir, "THIRD_PARTY_LICENSES.md"), thirdPartyLicences(packageDirectory, result.metafile))
  return Path.join(outdir, "leasehold.js")
}
