/**
 * A plain static file server for the built site, on a loopback port, as a web server set up for a VitePress site
 * serves `site/dist`: a folder's path serves its `index.html`, a path typed without `.html`
 * (`/guide/getting-started`) serves that page, and a path the site does not have gets the site's 404 page with
 * status 404. No network. The browser test and `npm run site:preview` load the site through it.
 */
import * as Fs from "node:fs"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Path from "node:path"

const types: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".json": "application/json",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8"
}

const isFile = (path: string) => Fs.existsSync(path) && Fs.statSync(path).isFile()

/** The file a request's path names in `root`: itself, its folder's `index.html`, or its page (`path.html`). */
export const resolvePath = (root: string, path: string): string | undefined => {
  const file = Path.join(root, path)
  if (file !== root && !file.startsWith(root + Path.sep)) return undefined
  const candidates = [file, Path.join(file, "index.html")]
  if (Path.extname(file) === "" && !path.endsWith("/")) candidates.push(`${file}.html`)
  return candidates.find(isFile)
}

/** A running server: its origin, the paths it could not serve, and how to stop it. */
export interface StaticServer {
  readonly origin: string
  readonly missing: ReadonlyArray<string>
  readonly close: () => Promise<void>
}

/** Serves `root` on 127.0.0.1 at `port` (0: a free one). */
export const serve = async (root: string, port = 0): Promise<StaticServer> => {
  const missing: Array<string> = []
  const notFound = Path.join(root, "404.html")
  const server = Http.createServer((request, response) => {
    let path: string
    try {
      path = decodeURIComponent(new URL(request.url ?? "/", "http://localhost").pathname)
    } catch {
      response.writeHead(400, { "content-type": "text/plain" }).end("bad request")
      return
    }
    const file = resolvePath(root, path)
    if (file === undefined) {
      missing.push(path)
      if (isFile(notFound)) {
        response.writeHead(404, { "content-type": types[".html"] })
        Fs.createReadStream(notFound).pipe(response)
      } else response.writeHead(404, { "content-type": "text/plain" }).end(`not found: ${path}`)
      return
    }
    response.writeHead(200, { "content-type": types[Path.extname(file)] ?? "application/octet-stream" })
    Fs.createReadStream(file).pipe(response)
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, "127.0.0.1", resolve)
  })
  const address = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${address.port}`,
    missing,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
