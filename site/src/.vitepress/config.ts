import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { type DefaultTheme, defineConfig } from "vitepress"
import * as BenchValues from "../../scripts/benchValues.js"

interface ApiLine {
  readonly id: string
  readonly title: string
  readonly packages: ReadonlyArray<{
    readonly name: string
    readonly folder: string
    readonly modules: ReadonlyArray<{ readonly module: string; readonly link: string }>
  }>
}

// The API reference's pages are generated before the build (site/scripts/apiPages.ts), which lists them here: a line
// of Effect (the Effect 4 line first), its packages and their modules.
const apiLines = (): ReadonlyArray<ApiLine> => {
  const file = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "..", "api", "lines.json")
  return Fs.existsSync(file) ? JSON.parse(Fs.readFileSync(file, "utf8")) as ReadonlyArray<ApiLine> : []
}

const guide: Array<DefaultTheme.SidebarItem> = [
  {
    text: "Start",
    items: [
      { text: "Getting started", link: "/guide/getting-started" },
      { text: "What to pick when", link: "/guide/choosing" },
      { text: "The demo", link: "/guide/demo" },
      { text: "Options", link: "/guide/options" },
      { text: "Semantics and guarantees", link: "/guide/semantics" },
      { text: "Testing", link: "/guide/testing" }
    ]
  },
  {
    text: "Features",
    items: [
      { text: "Typed lock data", link: "/guide/typed-data" },
      { text: "Semaphores", link: "/guide/semaphores" },
      { text: "Leader election", link: "/guide/leader-election" },
      { text: "Lease sessions", link: "/guide/sessions" },
      { text: "Read/write locks", link: "/guide/read-write-locks" },
      { text: "Several locks at once", link: "/guide/several-locks" },
      { text: "Handing a lease over", link: "/guide/hand-off" }
    ]
  },
  {
    text: "In production",
    items: [
      { text: "Operating", link: "/guide/operating" },
      { text: "Examples", link: "/guide/examples" },
      { text: "Performance", link: "/guide/performance" },
      { text: "Benchmarks (full run)", link: "/benchmarks" },
      { text: "The safety checker", link: "/guide/safety-checker" },
      { text: "Compared with other locks", link: "/guide/comparison" }
    ]
  },
  {
    text: "The project",
    items: [{ text: "Packages, layout, releases", link: "/guide/project" }]
  }
]

// Each line has a sidebar of its own, which names the line at its top; the reference's front page lists the lines.
const lineSidebar = (line: ApiLine, lines: ReadonlyArray<ApiLine>): Array<DefaultTheme.SidebarItem> => [
  {
    text: `API (${line.title})`,
    link: `/api/${line.id}/`,
    items: lines.filter((other) => other !== line).map((other) => ({
      text: `API (${other.title})`,
      link: `/api/${other.id}/`
    }))
  },
  ...line.packages.map((pkg) => ({
    text: pkg.name,
    collapsed: pkg.folder !== "lock",
    items: pkg.modules.map((m) => ({ text: m.module === "index" ? "index" : m.module, link: m.link }))
  }))
]

const apiSidebars = (): DefaultTheme.SidebarMulti => {
  const lines = apiLines()
  return Object.fromEntries([
    ["/api/", [
      { text: "API reference", link: "/api/" },
      ...lines.map((line) => ({ text: `API (${line.title})`, link: `/api/${line.id}/` }))
    ]],
    ...lines.map((line) => [`/api/${line.id}/`, lineSidebar(line, lines)])
  ])
}

export default defineConfig({
  title: "Leasehold",
  description: "Distributed locks for Effect, on Amazon DynamoDB",
  lang: "en-US",
  head: [["link", { rel: "icon", type: "image/svg+xml", href: "/favicon.svg" }]],
  outDir: "../dist",
  cacheDir: "./.vitepress/cache",
  // Plain file names (`/guide/options.html`), so the built site works from any static server, without rewrites.
  cleanUrls: false,
  lastUpdated: false,
  markdown: {
    theme: { light: "github-light", dark: "github-dark" },
    // A page's measured numbers are BENCHMARKS.md's, put in where the page names them (`{bench:...}`).
    config: (md) => {
      md.use(BenchValues.markdownPlugin(BenchValues.load()))
    }
  },
  themeConfig: {
    nav: [
      { text: "Guide", link: "/guide/getting-started" },
      {
        text: "API",
        items: [
          { text: "API reference", link: "/api/" },
          ...apiLines().map((line) => ({ text: `API (${line.title})`, link: `/api/${line.id}/` }))
        ]
      },
      { text: "Performance", link: "/guide/performance" }
    ],
    sidebar: { "/guide/": guide, "/benchmarks": guide, ...apiSidebars() },
    outline: { level: [2, 3] },
    search: { provider: "local" },
    socialLinks: [{ icon: "github", link: "https://github.com/leasehold/leasehold" }],
    footer: { message: "MIT licensed" }
  }
})
