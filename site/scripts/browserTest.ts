/**
 * The browser test of the built site (`npm run test:site`, after `npm run site`): serves `site/dist` on a loopback
 * port and drives headless Chromium through every page. Each page must render its heading and every code block its
 * Markdown has, load its images, throw nothing and show no template text (`{@link`, `{bench:`); at 1920 px no table
 * may be cut off; every link inside the site must reach a page that exists, and an anchor in it must name a heading
 * of that page; the API reference must show what its types are on both lines; a path typed without `.html` must
 * serve its page and a missing one the 404 page listing the guide; the search box must find `withLock` in both
 * Effect lines' references.
 *
 * Chromium is the system's (`CHROMIUM`, or `chromium` on the `PATH`). Without one the test is skipped with a message,
 * except under CI (`CI=true`), where `.ci/run` installs it and its absence fails the run.
 * `--screenshots` also writes the committed screenshots (`site/screenshots/`); `SITE_TEST_TRACE=1` prints each page.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { Browser, findChromium, type Page } from "./cdp.js"
import { distRoot, siteRoot, sourceRoot } from "./paths.js"
import { serve } from "./staticServer.js"

/** Every HTML page of the built site, as a path from its root (`/guide/options.html`). */
const builtPages = (directory = distRoot): ReadonlyArray<string> =>
  Fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = Path.join(directory, entry.name)
    if (entry.isDirectory()) return entry.name === "assets" ? [] : builtPages(path)
    if (!entry.name.endsWith(".html") || path === Path.join(distRoot, "404.html")) return []
    return [`/${Path.relative(distRoot, path).split(Path.sep).join("/")}`]
  })

/** How many fenced code blocks a page's Markdown source has. */
const fencedBlocks = (page: string): number => {
  const source = Path.join(sourceRoot, page.replace(/\.html$/, ".md"))
  if (!Fs.existsSync(source)) throw new Error(`${page}: no Markdown source at ${source}`)
  let count = 0
  let open = false
  for (const line of Fs.readFileSync(source, "utf8").split("\n")) {
    if (/^\s*```/.test(line)) {
      if (!open) count++
      open = !open
    }
  }
  return count
}

/** A table as the browser lays it out at the test's width. */
interface TableLayout {
  readonly scrollWidth: number
  readonly clientWidth: number
  readonly right: number
  readonly overflowX: string
}

interface PageReport {
  readonly heading: string
  readonly tables: ReadonlyArray<TableLayout>
  readonly columnRight: number
  readonly viewport: number
  /** Template text left in the page: a JSDoc link docgen did not resolve, a bench number not put in. */
  readonly raw: ReadonlyArray<string>
  readonly codeBlocks: number
  readonly emptyCodeBlocks: number
  readonly brokenImages: ReadonlyArray<string>
  readonly links: ReadonlyArray<string>
  readonly ids: ReadonlyArray<string>
}

const inspect = `(() => {
  const heading = document.querySelector(".vp-doc h1, .VPHero .name, .VPHero h1")
  const blocks = [...document.querySelectorAll('.vp-doc div[class*="language-"] pre')]
  const content = document.querySelector(".VPContent")
  const text = content ? content.innerText : ""
  // A page may show a bench reference in code, to explain it; outside code it would be a number not put in.
  let prose = ""
  if (content) {
    const walker = document.createTreeWalker(content, NodeFilter.SHOW_TEXT)
    while (walker.nextNode()) {
      if (!walker.currentNode.parentElement.closest("code, pre")) prose += walker.currentNode.textContent
    }
  }
  return {
    heading: heading ? heading.textContent.trim() : "",
    tables: [...document.querySelectorAll(".vp-doc table")].map((table) => ({
      scrollWidth: table.scrollWidth,
      clientWidth: table.clientWidth,
      right: table.getBoundingClientRect().right,
      overflowX: getComputedStyle(table).overflowX
    })),
    columnRight: document.querySelector(".vp-doc") ? document.querySelector(".vp-doc").getBoundingClientRect().right : 0,
    viewport: window.innerWidth,
    raw: [...(text.includes("{@link") ? ["{@link"] : []), ...(prose.includes("{bench:") ? ["{bench:"] : [])],
    codeBlocks: blocks.length,
    emptyCodeBlocks: blocks.filter((pre) => pre.textContent.trim() === "").length,
    brokenImages: [...document.querySelectorAll("img")]
      .filter((img) => !img.complete || img.naturalWidth === 0).map((img) => img.getAttribute("src")),
    links: [...document.querySelectorAll("a[href]")].map((a) => a.href),
    ids: [...document.querySelectorAll("[id]")].map((element) => element.id)
  }
})()`

/** The width the pages are checked at: a common desktop screen, where a wide table must be seen whole. */
const desktop = { width: 1920, height: 1080, deviceScaleFactor: 1, mobile: false }

/** A table that is cut off: past its text column or the window, or wider than its box without scrolling. */
const tableProblems = (path: string, report: PageReport): Array<string> =>
  report.tables.flatMap((table, i) => {
    const which = `${path}: table ${i + 1}`
    if (table.right > report.viewport + 1 || table.right > report.columnRight + 1) {
      return [`${which} goes past the text column at ${desktop.width} px (right edge ${table.right} px)`]
    }
    if (table.scrollWidth <= table.clientWidth + 1) return []
    // The guide's tables are seen whole on a desktop screen; a wider one (the full benchmark run's) scrolls.
    if (path.startsWith("/guide/")) {
      return [`${which} is cut off at ${desktop.width} px: ${table.clientWidth} of ${table.scrollWidth} px shown`]
    }
    return table.overflowX === "auto" || table.overflowX === "scroll"
      ? []
      : [`${which} is cut off: ${table.clientWidth} of ${table.scrollWidth} px shown, and it does not scroll`]
  })

/**
 * What the API reference must show on both lines: constants with their literal types (not `any`), the fields of the
 * types the test kit takes from the core, and JSDoc links as links.
 */
const apiExpectations = (line: string) => [
  {
    page: `/api/${line}/dynamodb/DynamoLockStore.html`,
    texts: ["defaultFamily: \"leasehold\"", "defaultPartitionKey: \"key\""],
    links: []
  },
  {
    page: `/api/${line}/testing/Simulation.html`,
    texts: ["export interface SectionSpec {", "readonly process: string"],
    links: []
  },
  {
    page: `/api/${line}/testing/FaultyStore.html`,
    texts: ["export interface Fault {", "readonly kind: FaultKind"],
    links: []
  },
  {
    page: `/api/${line}/testing/DynamoServer.html`,
    texts: [],
    links: [{ text: "startForGlobalSetup", hash: "#startforglobalsetup" }]
  }
]

const checkApi = async (page: Page, origin: string): Promise<Array<string>> => {
  const problems: Array<string> = []
  for (const expected of ["effect4", "effect3"].flatMap(apiExpectations)) {
    await page.goto(`${origin}${expected.page}`)
    const found = await page.evaluate<{ text: string; links: Array<{ text: string; hash: string }> }>(`(() => {
      const doc = document.querySelector(".vp-doc")
      return {
        text: doc ? doc.innerText : "",
        links: doc ? [...doc.querySelectorAll("a")].map((a) => ({ text: a.textContent.trim(), hash: a.hash })) : []
      }
    })()`)
    for (const text of expected.texts) {
      if (!found.text.includes(text)) problems.push(`${expected.page}: does not show ${JSON.stringify(text)}`)
    }
    for (const link of expected.links) {
      if (!found.links.some((a) => a.text === link.text && a.hash === link.hash)) {
        problems.push(`${expected.page}: no link "${link.text}" to ${link.hash}`)
      }
    }
  }
  return problems
}

/**
 * A path typed without `.html` is served as its page; a path the site does not have answers 404 with the site's 404
 * page, which names what was asked for and lists the guide's pages, each of which the server serves.
 */
const checkCleanUrls = async (page: Page, origin: string, headings: ReadonlyMap<string, string>) => {
  const problems: Array<string> = []
  const clean = await fetch(`${origin}/guide/getting-started`)
  const html = await (await fetch(`${origin}/guide/getting-started.html`)).text()
  if (clean.status !== 200 || (await clean.text()) !== html) {
    problems.push(`/guide/getting-started: status ${clean.status}, not the page /guide/getting-started.html`)
  }
  const missing = await fetch(`${origin}/guide/no-such-page`)
  if (missing.status !== 404 || !(await missing.text()).includes("<title>404")) {
    problems.push(`/guide/no-such-page: status ${missing.status}, not 404 with the site's 404 page`)
  }
  page.errors.length = 0
  await page.goto(`${origin}/guide/getting-started`)
  await page.waitFor(`document.querySelector(".vp-doc h1")`, "the heading of /guide/getting-started")
  const heading = await page.evaluate<string>(`document.querySelector(".vp-doc h1").textContent.trim()`)
  if (heading !== headings.get("/guide/getting-started.html")) {
    problems.push(`/guide/getting-started shows "${heading}", not the page's heading`)
  }
  await page.goto(`${origin}/guide/no-such-page`)
  await page.waitFor(
    `document.querySelector(".NotFound") && document.querySelector(".NotFound").innerText.includes("/guide/no-such-page")`,
    "the 404 page naming /guide/no-such-page"
  )
  const links = await page.evaluate<Array<string>>(
    `[...document.querySelectorAll(".NotFound a[href^='/guide/']")].map((a) => a.getAttribute("href"))`
  )
  const guide = [...headings.keys()].filter((path) => path.startsWith("/guide/"))
  for (const path of guide) {
    if (!links.includes(path)) problems.push(`the 404 page does not list ${path}`)
  }
  for (const link of links) {
    const response = await fetch(`${origin}${link}`)
    if (response.status !== 200) problems.push(`the 404 page links to ${link}, which answers ${response.status}`)
  }
  for (const error of page.errors) problems.push(`clean URLs: ${error}`)
  return problems
}

const checkSearch = async (page: Page, origin: string): Promise<string> => {
  await page.goto(`${origin}/`)
  await page.waitFor(`document.querySelector("#local-search button, .VPNavBarSearch button")`, "the search button")
  await page.evaluate(`document.querySelector("#local-search button, .VPNavBarSearch button").click()`)
  await page.waitFor(`document.querySelector(".VPLocalSearchBox input")`, "the search box")
  await page.evaluate(`document.querySelector(".VPLocalSearchBox input").focus()`)
  await page.send("Input.insertText", { text: "withLock" })
  await page.waitFor(
    `[...document.querySelectorAll(".VPLocalSearchBox .result")].some((r) => r.textContent.includes("withLock"))`,
    "a search result for withLock"
  )
  const results = await page.evaluate<Array<{ text: string; href: string }>>(
    `[...document.querySelectorAll(".VPLocalSearchBox a.result")]
      .map((a) => ({ text: a.textContent.replace(/\\s+/g, " ").trim(), href: a.getAttribute("href") }))`
  )
  // Each Effect line's `Lock` module documents `withLock`, and both must be found.
  const found = ["effect4", "effect3"].map((line) => {
    const result = results.find((result) =>
      result.href.includes(`/api/${line}/lock/Lock.html`) && result.text.includes("withLock")
    )
    if (result === undefined) {
      throw new Error(
        `search for withLock did not find the ${line} Lock module's withLock: ${JSON.stringify(results.slice(0, 8))}`
      )
    }
    return result.href
  })
  return `search: "withLock" finds ${results.length} results, among them ${found.join(" and ")}`
}

const screenshots = async (page: Page, origin: string): Promise<void> => {
  const directory = Path.join(siteRoot, "screenshots")
  Fs.mkdirSync(directory, { recursive: true })
  await page.send("Emulation.setDeviceMetricsOverride", {
    width: 1280,
    height: 900,
    deviceScaleFactor: 1,
    mobile: false
  })
  await page.goto(`${origin}/`)
  await page.screenshot(Path.join(directory, "home.png"))
  await page.goto(`${origin}/charts/takeover.svg`)
  await page.send("Emulation.setDeviceMetricsOverride", {
    width: 820,
    height: 390,
    deviceScaleFactor: 1,
    mobile: false
  })
  await page.screenshot(Path.join(directory, "chart-takeover.png"))
  console.log(`screenshots written to ${Path.relative(process.cwd(), directory)}`)
}

const main = async (): Promise<void> => {
  const started = performance.now()
  if (!Fs.existsSync(Path.join(distRoot, "index.html"))) throw new Error("no built site: run `npm run site` first")
  const chromium = findChromium()
  if (chromium === undefined) {
    const message = "no Chromium found (set CHROMIUM, or apt-get install chromium)"
    if (process.env["CI"] === "true") throw new Error(message)
    console.log(`site browser test skipped: ${message}`)
    return
  }
  const server = await serve(distRoot)
  const browser = await Browser.launch(chromium)
  const problems: Array<string> = []
  try {
    const page = await browser.newPage()
    await page.send("Emulation.setDeviceMetricsOverride", desktop)
    const pages = builtPages()
    const reports = new Map<string, PageReport>()
    for (const path of pages) {
      page.errors.length = 0
      if (process.env["SITE_TEST_TRACE"]) console.log(path)
      await page.goto(`${server.origin}${path}`)
      const report = await page.evaluate<PageReport>(inspect)
      reports.set(path, report)
      const expected = fencedBlocks(path)
      if (report.heading === "") problems.push(`${path}: no heading`)
      if (report.codeBlocks !== expected) {
        problems.push(`${path}: ${report.codeBlocks} code blocks rendered, ${expected} in its Markdown`)
      }
      if (report.emptyCodeBlocks > 0) problems.push(`${path}: ${report.emptyCodeBlocks} empty code blocks`)
      for (const image of report.brokenImages) problems.push(`${path}: image ${image} did not load`)
      for (const raw of report.raw) problems.push(`${path}: shows "${raw}" as text`)
      problems.push(...tableProblems(path, report))
      for (const error of page.errors) problems.push(`${path}: ${error}`)
    }
    let checkedLinks = 0
    for (const [path, report] of reports) {
      for (const href of new Set(report.links)) {
        const url = new URL(href)
        if (url.origin !== server.origin) continue
        checkedLinks++
        const target = url.pathname.endsWith("/") ? `${url.pathname}index.html` : url.pathname
        const targetReport = reports.get(target)
        if (targetReport === undefined) {
          if (!target.endsWith(".html") && Fs.existsSync(Path.join(distRoot, target))) continue
          problems.push(`${path}: link to ${url.pathname} reaches no page`)
        } else if (url.hash !== "" && !targetReport.ids.includes(decodeURIComponent(url.hash.slice(1)))) {
          problems.push(`${path}: link to ${url.pathname}${url.hash} names no heading of that page`)
        }
      }
    }
    for (const path of server.missing) problems.push(`the server was asked for ${path}, which the site does not have`)
    problems.push(...await checkApi(page, server.origin))
    const headings = new Map([...reports].map(([path, report]) => [path, report.heading]))
    problems.push(...await checkCleanUrls(page, server.origin, headings))
    const search = await checkSearch(page, server.origin)
    if (process.argv.includes("--screenshots")) await screenshots(page, server.origin)
    if (problems.length > 0) {
      throw new Error(`the site's browser test found ${problems.length} problems:\n${problems.join("\n")}`)
    }
    console.log(
      `site browser test passed: ${pages.length} pages with their headings and code blocks, their tables whole at ` +
        `${desktop.width} px, ${checkedLinks} internal links resolved; the API reference's types and links on both ` +
        `lines; clean URLs and the 404 page; ${search} (${
          ((performance.now() - started) / 1000).toFixed(1)
        } s, ${chromium})`
    )
  } finally {
    await browser.close()
    await server.close()
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error)
  process.exitCode = 1
})
