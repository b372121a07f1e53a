/**
 * The browser test of the built site (`npm run test:site`, after `npm run site`): serves `site/dist` on a loopback
 * port and drives headless Chromium through every page. Each page must render its heading and every code block its
 * Markdown has, load its images, and throw nothing; every link inside the site must reach a page that exists, and an
 * anchor in it must name a heading of that page; the search box must find `withLock` in both Effect lines' references.
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

interface PageReport {
  readonly heading: string
  readonly codeBlocks: number
  readonly emptyCodeBlocks: number
  readonly brokenImages: ReadonlyArray<string>
  readonly links: ReadonlyArray<string>
  readonly ids: ReadonlyArray<string>
}

const inspect = `(() => {
  const heading = document.querySelector(".vp-doc h1, .VPHero .name, .VPHero h1")
  const blocks = [...document.querySelectorAll('.vp-doc div[class*="language-"] pre')]
  return {
    heading: heading ? heading.textContent.trim() : "",
    codeBlocks: blocks.length,
    emptyCodeBlocks: blocks.filter((pre) => pre.textContent.trim() === "").length,
    brokenImages: [...document.querySelectorAll("img")]
      .filter((img) => !img.complete || img.naturalWidth === 0).map((img) => img.getAttribute("src")),
    links: [...document.querySelectorAll("a[href]")].map((a) => a.href),
    ids: [...document.querySelectorAll("[id]")].map((element) => element.id)
  }
})()`

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
    const search = await checkSearch(page, server.origin)
    if (process.argv.includes("--screenshots")) await screenshots(page, server.origin)
    if (problems.length > 0) {
      throw new Error(`the site's browser test found ${problems.length} problems:\n${problems.join("\n")}`)
    }
    console.log(
      `site browser test passed: ${pages.length} pages with their headings and code blocks, ${checkedLinks} internal ` +
        `links resolved; ${search} (${((performance.now() - started) / 1000).toFixed(1)} s, ${chromium})`
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
