import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { resolvePath, serve, type StaticServer } from "../scripts/staticServer.js"

describe("the static server", () => {
  let root: string
  let server: StaticServer
  beforeAll(async () => {
    root = Fs.mkdtempSync(Path.join(Os.tmpdir(), "site-server-"))
    Fs.mkdirSync(Path.join(root, "guide"))
    Fs.writeFileSync(Path.join(root, "index.html"), "home")
    Fs.writeFileSync(Path.join(root, "404.html"), "<title>404</title>")
    Fs.writeFileSync(Path.join(root, "guide", "index.html"), "guide index")
    Fs.writeFileSync(Path.join(root, "guide", "getting-started.html"), "getting started")
    server = await serve(root)
  })
  afterAll(async () => {
    await server.close()
    Fs.rmSync(root, { recursive: true, force: true })
  })

  it("finds a file, a folder's index, and a page typed without .html; nothing outside its folder", () => {
    expect(resolvePath(root, "/guide/getting-started.html")).toBe(Path.join(root, "guide", "getting-started.html"))
    expect(resolvePath(root, "/guide/getting-started")).toBe(Path.join(root, "guide", "getting-started.html"))
    expect(resolvePath(root, "/guide/")).toBe(Path.join(root, "guide", "index.html"))
    expect(resolvePath(root, "/guide/getting-started/")).toBeUndefined()
    expect(resolvePath(root, "/guide/nothing")).toBeUndefined()
    expect(resolvePath(root, `/../${Path.basename(root)}-other/index.html`)).toBeUndefined()
  })

  it("serves a clean URL as its page, and a missing path as the 404 page with status 404", async () => {
    const page = await fetch(`${server.origin}/guide/getting-started`)
    expect([page.status, await page.text()]).toEqual([200, "getting started"])
    const missing = await fetch(`${server.origin}/guide/nothing`)
    expect([missing.status, await missing.text()]).toEqual([404, "<title>404</title>"])
    expect(server.missing).toEqual(["/guide/nothing"])
  })
})
