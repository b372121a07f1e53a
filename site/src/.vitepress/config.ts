import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { type DefaultTheme, defineConfig } from "vitepress"

interface ApiPackage {
  readonly name: string
  readonly folder: string
  readonly modules: ReadonlyArray<{ readonly module: string; readonly link: string }>
}

// The API reference's pages are generated before the build (site/scripts/apiPages.ts), which lists them here.
const apiPackages = (): ReadonlyArray<ApiPackage> => {
  const file = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "..", "api", "packages.json")
  return Fs.existsSync(file) ? JSON.parse(Fs.readFileSync(file, "utf8")) as ReadonlyArray<ApiPackage> : []
}

const guide: Array<DefaultTheme.SidebarItem> = [
  {
    text: "Start",
    items: [
      { text: "Getting started", link: "/guide/getting-started" },
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

const api = (): Array<DefaultTheme.SidebarItem> => [
  { text: "API reference", link: "/api/" },
  ...apiPackages().map((pkg) => ({
    text: pkg.name,
    collapsed: pkg.folder !== "lock",
    items: pkg.modules.map((m) => ({ text: m.module === "index" ? "index" : m.module, link: m.link }))
  }))
]

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
  markdown: { theme: { light: "github-light", dark: "github-dark" } },
  themeConfig: {
    nav: [
      { text: "Guide", link: "/guide/getting-started" },
      { text: "API", link: "/api/" },
      { text: "Performance", link: "/guide/performance" }
    ],
    sidebar: { "/guide/": guide, "/benchmarks": guide, "/api/": api() },
    outline: { level: [2, 3] },
    search: { provider: "local" },
    socialLinks: [{ icon: "github", link: "https://github.com/leasehold/leasehold" }],
    footer: { message: "MIT licensed" }
  }
})
