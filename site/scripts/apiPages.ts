/**
 * The API reference: the Markdown that `@effect/docgen` writes from the JSDoc (`npm run docs`, into
 * `packages/<name>/docs/modules` for the Effect 3 line and `effect4/packages/<name>/docs/modules` for the Effect 4
 * line), turned into pages of the site, each line under a path of its own (`/api/effect4/`, `/api/effect3/`). Only a
 * package's public modules (the keys of its `exports` map) get a page; docgen's own navigation (front matter, table of
 * contents) gives way to the site's.
 */
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import ts from "typescript"
import { apiRoot, repositoryRoot } from "./paths.js"

/** The Effect 3 line's packages whose modules the reference documents, in the order the sidebar shows them. */
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

/** One Effect line of the reference: its packages' pages live under `/api/<id>/`. */
export interface ApiLine {
  readonly id: string
  /** `Effect 4`. */
  readonly title: string
  /** Which releases of the packages it is, and how to install them. */
  readonly releases: string
  readonly packages: ReadonlyArray<ApiPackage>
}

/** Where a line's packages are, and which of them the reference documents. */
interface LineSource {
  readonly id: string
  readonly title: string
  readonly releases: string
  /** The npm project whose workspaces the packages are: its `npm run docs --workspace` writes their docs. */
  readonly project: string
  readonly folders: () => ReadonlyArray<string>
}

const effect4Project = Path.join(repositoryRoot, "effect4")

/**
 * A package of the Effect 4 line still being ported: its `src/index.ts` is the scaffold's placeholder, which exports
 * nothing (`export {}` and comments). `npm run docs:effect4` skips such a package too (`scripts/effect4.ts`).
 */
const isPlaceholder = (packageDirectory: string): boolean => {
  const index = Path.join(packageDirectory, "src", "index.ts")
  if (!Fs.existsSync(index)) return true
  const code = Fs.readFileSync(index, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "").trim()
  return /^export\s*\{\s*\};?$/.test(code)
}

/**
 * Every package of the Effect 4 project with a docgen configuration, in the Effect 3 line's order, then by name; a
 * package still being ported is left out, with a note.
 */
const effect4Folders = (): ReadonlyArray<string> => {
  const root = Path.join(effect4Project, "packages")
  const rank = (folder: string) => {
    const index = (documentedPackages as ReadonlyArray<string>).indexOf(folder)
    return index === -1 ? documentedPackages.length : index
  }
  return Fs.readdirSync(root)
    .filter((folder) => Fs.existsSync(Path.join(root, folder, "docgen.json")))
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
    .filter((folder) => {
      if (!isPlaceholder(Path.join(root, folder))) return true
      console.log(
        `site: effect4/packages/${folder} is not in the Effect 4 reference: its src/index.ts is a placeholder`
      )
      return false
    })
}

/** The lines, the default one first: Effect 4 is what a plain `npm i` installs. */
const lineSources: ReadonlyArray<LineSource> = [
  {
    id: "effect4",
    title: "Effect 4",
    releases: "the 2.x releases, on npm's `latest`: `npm i @leasehold/lock effect`",
    project: effect4Project,
    folders: effect4Folders
  },
  {
    id: "effect3",
    title: "Effect 3",
    releases: "the 1.x releases, on the `effect3` dist-tag: `npm i @leasehold/lock@effect3 effect@^3`",
    project: repositoryRoot,
    folders: () => documentedPackages
  }
]

const packageDirectory = (line: LineSource, folder: string) => Path.join(line.project, "packages", folder)
const docsDirectory = (line: LineSource, folder: string) => Path.join(packageDirectory(line, folder), "docs", "modules")

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
const ensureDocs = (line: LineSource, folder: string): void => {
  const docs = docsDirectory(line, folder)
  const docsTime = Fs.existsSync(docs) ? newestChange(docs) : 0
  if (docsTime > 0 && docsTime >= newestChange(Path.join(packageDirectory(line, folder), "src"))) return
  const where = Path.relative(repositoryRoot, packageDirectory(line, folder))
  console.log(`site: generating the API docs of ${where} (its npm run docs)`)
  execFileSync("npm", ["run", "docs", "--workspace", `packages/${folder}`], { cwd: line.project, stdio: "inherit" })
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
  const members = memberHeadings(body)
  let inCode = false
  for (const rawLine of body.split("\n")) {
    if (fence.test(rawLine)) {
      inCode = !inCode
      out.push(rawLine)
      continue
    }
    if (inCode) {
      out.push(rawLine.replace(jsDocLink, (_link, target: string, text: string | undefined) => text ?? target))
      continue
    }
    const line = resolveLinks(rawLine, members)
    if (/^## .* overview$/.test(line)) continue
    if (line.startsWith("# ")) out.push(`## ${line.slice(2)}`)
    else if (line.startsWith("## ")) out.push(`### ${line.slice(3)}`)
    else out.push(escapeForVue(line))
  }
  return out.join("\n").replace(/\n{3,}/g, "\n\n")
}

/** A JSDoc link: `{@link name}`, `{@link name text}` or `{@link name | text}`. */
const jsDocLink = /\{@link(?:code|plain)?\s+([^\s|}]+)(?:\s*\|\s*|\s+)?([^}]*?)?\s*\}/g

/** The page's member headings (`# name` or `## name (interface)` in docgen's page) by name, with their anchors. */
const memberHeadings = (body: string): ReadonlyMap<string, string> =>
  new Map(
    [...body.matchAll(/^##? (\S+)(.*)$/gm)].map((match) => [match[1]!, slug(`${match[1]}${match[2]}`)] as const)
  )

/** The anchor VitePress gives a heading (its slugify). */
const slug = (heading: string): string =>
  heading.normalize("NFKD").replace(/[\u0300-\u036F]/g, "").replace(/[\u0000-\u001f]/g, "")
    .replace(/[\s~`!@#$%^&*()\-_+=[\]{}|\\;:"'“”‘’<>,.?/]+/g, "-").replace(/-{2,}/g, "-").replace(/^-+|-+$/g, "")
    .replace(/^(\d)/, "_$1").toLowerCase()

/**
 * A JSDoc link in prose as the site shows it: code that links to the member's heading when this page has one, code
 * alone otherwise (a member of another module: its page is in the sidebar).
 */
const resolveLinks = (line: string, members: ReadonlyMap<string, string>): string =>
  line.replace(jsDocLink, (_link, target: string, text: string | undefined) => {
    const label = text === undefined || text === "" ? `\`${target}\`` : text
    const anchor = members.get(target)
    return anchor === undefined ? label : `[${label}](#${anchor})`
  })

/** Outside inline code, `{{` and a `<` that opens no HTML tag are text, not Vue template syntax. */
const escapeForVue = (line: string): string =>
  line.split(/(`[^`]*`)/).map((part, index) =>
    index % 2 === 1
      ? part
      : part.replace(/\{\{/g, "&#123;&#123;").replace(/<(?!\/?(a|h\d|p|br|code|em|strong)\b)/g, "&lt;")
  ).join("")

const coreSource = Path.join(repositoryRoot, "packages", "core", "src")

/** The namespaces a source file imports from `@leasehold/core` (or, inside the core, from a sibling), by file. */
const coreImports = (file: string): ReadonlyMap<string, string> => {
  const text = Fs.readFileSync(file, "utf8")
  return new Map(
    [...text.matchAll(/^import\s+(?:type\s+)?\*\s+as\s+(\w+)\s+from\s+"([^"]+)"/gm)].flatMap(([, name, from]) => {
      if (from!.startsWith("@leasehold/core/")) {
        return [[name!, Path.join(coreSource, `${from!.slice(16)}.ts`)] as const]
      }
      if (file.startsWith(coreSource) && from!.startsWith(".")) {
        return [[name!, Path.resolve(Path.dirname(file), from!.replace(/\.js$/, ".ts"))] as const]
      }
      return []
    })
  )
}

/**
 * The declaration of `name` in a core file, as its source writes it (members and their comments, not the comment
 * above it, which docgen's page already shows), following a re-exporting alias to the core file that declares it.
 */
const coreDeclaration = (file: string, name: string, hops = 0): { file: string; text: string } | undefined => {
  if (!Fs.existsSync(file) || hops > 3) return undefined
  const source = ts.createSourceFile(file, Fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true)
  const declaration = source.statements.find((
    statement
  ): statement is ts.TypeAliasDeclaration | ts.InterfaceDeclaration =>
    (ts.isTypeAliasDeclaration(statement) || ts.isInterfaceDeclaration(statement)) && statement.name.text === name
  )
  if (declaration === undefined) return undefined
  const alias = ts.isTypeAliasDeclaration(declaration) && ts.isTypeReferenceNode(declaration.type) &&
      ts.isQualifiedName(declaration.type.typeName)
    ? declaration.type.typeName
    : undefined
  if (alias !== undefined && ts.isIdentifier(alias.left)) {
    const next = coreImports(file).get(alias.left.text)
    if (next !== undefined) return coreDeclaration(next, alias.right.text, hops + 1)
  }
  return { file, text: declaration.getText(source) }
}

/**
 * Under the signature of a type that is the core's (`export type Fault = FaultModel.Fault`), the core's declaration
 * of it, so that the page shows its fields and cases rather than a name it has no page for.
 */
const expandCoreAliases = (page: string, moduleSource: string): string => {
  if (!Fs.existsSync(moduleSource)) return page
  const imports = coreImports(moduleSource)
  return page.replace(
    /^```ts\nexport type (\w+)(?:<[^>\n]*>)? = (\w+)\.(\w+)(?:<[^>\n]*>)?\n```$/gm,
    (block, _name: string, namespace: string, target: string) => {
      const file = imports.get(namespace)
      const found = file === undefined ? undefined : coreDeclaration(file, target)
      if (found === undefined) return block
      const module = Path.relative(coreSource, found.file).replace(/\.ts$/, "").split(Path.sep).join("/")
      return `${block}\n\nAs \`@leasehold/core/${module}\` declares it:\n\n\`\`\`ts\n${found.text}\n\`\`\``
    }
  )
}

/** Links docgen's index headings (`From "./Lock.js"`) to the module's page. */
const linkIndex = (markdown: string): string =>
  markdown.replace(/^### From "\.\/([A-Za-z0-9]+)\.js"$/gm, (_line, module: string) => `### [${module}](./${module})`)

interface PackageSource {
  readonly folder: string
  readonly manifest: PackageJson
  readonly modules: ReadonlyArray<string>
}

const pageLink = (line: { readonly id: string }, folder: string, module: string) =>
  `/api/${line.id}/${folder}/${module === "index" ? "" : module}`

/**
 * Writes the reference's pages under `site/src/api/<line>/<package>`, and says what they are, for the sidebars and the
 * index pages. A module's page links to the same module of the other line, where it has one.
 */
export const writeApiPages = (): ReadonlyArray<ApiLine> => {
  Fs.rmSync(apiRoot, { recursive: true, force: true })
  const sources = lineSources.map((line) => ({
    line,
    packages: line.folders().map((folder): PackageSource => {
      const manifest = JSON.parse(
        Fs.readFileSync(Path.join(packageDirectory(line, folder), "package.json"), "utf8")
      ) as PackageJson
      ensureDocs(line, folder)
      return { folder, manifest, modules: publicModules(manifest) }
    })
  }))
  const lines: Array<ApiLine> = []
  for (const { line, packages: sourcePackages } of sources) {
    const packages: Array<ApiPackage> = []
    for (const { folder, manifest, modules: names } of sourcePackages) {
      const modules: Array<ApiModule> = []
      Fs.mkdirSync(Path.join(apiRoot, line.id, folder), { recursive: true })
      for (const module of names) {
        const source = Path.join(docsDirectory(line, folder), `${module}.ts.md`)
        if (!Fs.existsSync(source)) throw new Error(`site: no docgen page for ${manifest.name}/${module} (${source})`)
        const importPath = module === "index" ? manifest.name : `${manifest.name}/${module}`
        const title = `${module === "index" ? manifest.name : module} (${line.title})`
        const others = sources.filter((other) =>
          other.line !== line &&
          other.packages.some((pkg) => pkg.folder === folder && pkg.modules.includes(module))
        ).map((other) => `[${other.line.title}](${pageLink(other.line, folder, module)})`)
        const elsewhere = others.length === 0 ? "" : ` The same module on ${others.join(", ")}.`
        const subtitle = module === "index"
          ? `${
            manifest.description ?? ""
          }\n\nThe package's root module re-exports each of its modules as a namespace; ` +
            `${line.title}'s line, ${line.releases}.${elsewhere}`
          : `Module \`${importPath}\` of [\`${manifest.name}\`](${pageLink(line, folder, "index")}) for ` +
            `${line.title}.${elsewhere}`
        const page = expandCoreAliases(
          convertPage(Fs.readFileSync(source, "utf8"), title, subtitle),
          Path.join(packageDirectory(line, folder), "src", `${module}.ts`)
        )
        Fs.writeFileSync(
          Path.join(apiRoot, line.id, folder, `${module}.md`),
          module === "index" ? linkIndex(page) : page
        )
        modules.push({ module, link: pageLink(line, folder, module) })
      }
      packages.push({ name: manifest.name, folder, description: manifest.description ?? "", modules })
    }
    const documented: ApiLine = { id: line.id, title: line.title, releases: line.releases, packages }
    Fs.writeFileSync(
      Path.join(apiRoot, line.id, "index.md"),
      lineIndexPage(documented, lineSources.filter((other) => other !== line))
    )
    lines.push(documented)
  }
  Fs.writeFileSync(Path.join(apiRoot, "index.md"), indexPage(lines))
  Fs.writeFileSync(Path.join(apiRoot, "lines.json"), JSON.stringify(lines, null, 2) + "\n")
  return lines
}

const generated = [
  "Every public module of the published packages, generated from the JSDoc in their sources by `@effect/docgen`",
  "(`npm run docs`). Every export carries `@since` and `@category`, and every `@example` is type-checked and run",
  "against the sources when the docs are generated."
]

const packageList = (pkg: ApiPackage): ReadonlyArray<string> => [
  `${pkg.description}\n`,
  ...pkg.modules.map((m) => `- [${m.module === "index" ? pkg.name : m.module}](${m.link})`),
  ""
]

/** The reference's front page: each line, and its packages. */
const indexPage = (lines: ReadonlyArray<ApiLine>): string =>
  [
    "---\ntitle: API reference\n---\n",
    "# API reference\n",
    "Leasehold has a line for each Effect major, with the same package names and modules; each has its reference.",
    "Pick the one whose `effect` you install.\n",
    ...lines.map((line) =>
      `- [API (${line.title})](/api/${line.id}/): ${line.releases}; ` +
      line.packages.map((pkg) => `[\`${pkg.name}\`](${pageLink(line, pkg.folder, "index")})`).join(", ") + "."
    ),
    "",
    ...generated,
    ""
  ].join("\n")

/** A line's reference: its packages, and their modules. */
const lineIndexPage = (line: ApiLine, others: ReadonlyArray<LineSource>): string =>
  [
    `---\ntitle: "API (${line.title})"\n---\n`,
    `# API (${line.title})\n`,
    `The reference of Leasehold for ${line.title}: ${line.releases}. The same packages for ` +
    others.map((other) => `[${other.title}](/api/${other.id}/)`).join(", ") + `; both lines: [API reference](/api/).\n`,
    ...generated,
    "",
    ...line.packages.flatMap((pkg) => [`## ${pkg.name}\n`, ...packageList(pkg)])
  ].join("\n")
