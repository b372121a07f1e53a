/**
 * The API reference: the Markdown that `@effect/docgen` writes from the JSDoc (`npm run docs`, into
 * `packages/<name>/docs/modules`), turned into pages of the site. Only a package's public modules (the keys of its
 * `exports` map) get a page; docgen's own navigation (front matter, table of contents) gives way to the site's.
 */
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { apiRoot, repositoryRoot } from "./paths.js"

/** The packages whose modules the reference documents, in the order the sidebar shows them. */
export const documentedPackages = ["lock", "dynamodb", "testing"] as const

/** One page of the reference: a module of a package. */
export interface ApiModule {
  /** The module's name as users import it: `Lock`, or `index` for the package's root. */
  readonly module: string
  /** The page's link inside the site. */
  readonly link: string
}

/** One package of the reference, with its modules. */
export interface ApiPackage {
  readonly name: string
  readonly folder: string
  readonly description: string
  readonly modules: ReadonlyArray<ApiModule>
}

const packageDirectory = (folder: string) => Path.join(repositoryRoot, "packages", folder)
const docsDirectory = (folder: string) => Path.join(packageDirectory(folder), "docs", "modules")

/** The newest modification time among a folder's files, recursively (0 for a missing folder). */
const newestChange = (directory: string): number => {
  if (!Fs.existsSync(directory)) return 0
  let newest = 0
  for (const entry of Fs.readdirSync(directory, { withFileTypes: true })) {
    const path = Path.join(directory, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestChange(path) : Fs.statSync(path).mtimeMs)
  }
  return newest
}

/**
 * Runs docgen for a package whose docs are missing or older than its sources, so that `npm run site` alone gives a
 * current reference; under `npm test`, `npm run docs` has just written them and nothing runs again.
 */
const ensureDocs = (folder: string): void => {
  const docs = docsDirectory(folder)
  const docsTime = Fs.existsSync(docs) ? newestChange(docs) : 0
  if (docsTime > 0 && docsTime >= newestChange(Path.join(packageDirectory(folder), "src"))) return
  console.log(`site: generating the API docs of packages/${folder} (npm run docs)`)
  execFileSync("npm", ["run", "docs", "--workspace", `packages/${folder}`], { cwd: repositoryRoot, stdio: "inherit" })
}

interface PackageJson {
  readonly name: string
  readonly description?: string
  readonly exports?: Record<string, unknown>
}

/** The public modules a package's `exports` map names: `.` is `index`, and `internal/*` is not public. */
const publicModules = (manifest: PackageJson): ReadonlyArray<string> =>
  Object.keys(manifest.exports ?? {})
    .filter((key) => key !== "./package.json" && !key.includes("*"))
    .map((key) => key === "." ? "index" : key.slice(2))

const fence = /^\s*(```|~~~)/

/**
 * One docgen page as a page of the site: docgen's category headings (`#`) and member headings (`##`) go one level
 * down under the module's title, its "overview" heading and table of contents go (the site shows an outline), and
 * text outside code that Vue would read as a template is escaped.
 */
export const convertPage = (markdown: string, title: string, subtitle: string): string => {
  const body = markdown.replace(/^---\n[\s\S]*?\n---\n/, "")
    .replace(/<h2 class="text-delta">Table of contents<\/h2>\n[\s\S]*?\n---\n/, "")
  const out: Array<string> = [`---\ntitle: ${JSON.stringify(title)}\n---\n`, `# ${title}\n`, subtitle, ""]
  let inCode = false
  for (const line of body.split("\n")) {
    if (fence.test(line)) {
      inCode = !inCode
      out.push(line)
      continue
    }
    if (inCode) {
      out.push(line)
      continue
    }
    if (/^## .* overview$/.test(line)) continue
    if (line.startsWith("# ")) out.push(`## ${line.slice(2)}`)
    else if (line.startsWith("## ")) out.push(`### ${line.slice(3)}`)
    else out.push(escapeForVue(line))
  }
  return out.join("\n").replace(/\n{3,}/g, "\n\n")
}

/** Outside inline code, `{{` and a `<` that opens no HTML tag are text, not Vue template syntax. */
const escapeForVue = (line: string): string =>
  line.split(/(`[^`]*`)/).map((part, index) =>
    index % 2 === 1
      ? part
      : part.replace(/\{\{/g, "&#123;&#123;").replace(/<(?!\/?(a|h\d|p|br|code|em|strong)\b)/g, "&lt;")
  ).join("")

/** Links docgen's index headings (`From "./Lock.js"`) to the module's page. */
const linkIndex = (markdown: string): string =>
  markdown.replace(/^### From "\.\/([A-Za-z0-9]+)\.js"$/gm, (_line, module: string) => `### [${module}](./${module})`)

/** Writes the reference's pages under `site/src/api` and says what they are, for the sidebar and the index page. */
export const writeApiPages = (): ReadonlyArray<ApiPackage> => {
  Fs.rmSync(apiRoot, { recursive: true, force: true })
  const packages: Array<ApiPackage> = []
  for (const folder of documentedPackages) {
    const manifest = JSON.parse(
      Fs.readFileSync(Path.join(packageDirectory(folder), "package.json"), "utf8")
    ) as PackageJson
    ensureDocs(folder)
    const modules: Array<ApiModule> = []
    Fs.mkdirSync(Path.join(apiRoot, folder), { recursive: true })
    for (const module of publicModules(manifest)) {
      const source = Path.join(docsDirectory(folder), `${module}.ts.md`)
      if (!Fs.existsSync(source)) throw new Error(`site: no docgen page for ${manifest.name}/${module} (${source})`)
      const importPath = module === "index" ? manifest.name : `${manifest.name}/${module}`
      const title = module === "index" ? manifest.name : module
      const subtitle = module === "index"
        ? `${manifest.description ?? ""}\n\nThe package's root module re-exports each of its modules as a namespace.`
        : `Module \`${importPath}\` of [\`${manifest.name}\`](/api/${folder}/).`
      const page = convertPage(Fs.readFileSync(source, "utf8"), title, subtitle)
      Fs.writeFileSync(Path.join(apiRoot, folder, `${module}.md`), module === "index" ? linkIndex(page) : page)
      modules.push({ module, link: `/api/${folder}/${module === "index" ? "" : module}` })
    }
    packages.push({ name: manifest.name, folder, description: manifest.description ?? "", modules })
  }
  Fs.writeFileSync(Path.join(apiRoot, "index.md"), indexPage(packages))
  Fs.writeFileSync(Path.join(apiRoot, "packages.json"), JSON.stringify(packages, null, 2) + "\n")
  return packages
}

const indexPage = (packages: ReadonlyArray<ApiPackage>): string =>
  [
    "---\ntitle: API reference\n---\n",
    "# API reference\n",
    "Every public module of the published packages, generated from the JSDoc in their sources by `@effect/docgen`",
    "(`npm run docs`). Every export carries `@since` and `@category`, and every `@example` is type-checked and run",
    "against the sources when the docs are generated.\n",
    ...packages.flatMap((pkg) => [
      `## ${pkg.name}\n`,
      `${pkg.description}\n`,
      ...pkg.modules.map((m) => `- [${m.module === "index" ? pkg.name : m.module}](${m.link})`),
      ""
    ])
  ].join("\n")
