/**
 * A plain static file server for the built site, on a loopback port: what any web server does with `site/dist`, no
 * rewrites, no network. The browser test loads the site through it.
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

/** A running server: its origin, the paths it could not serve, and how to stop it. */
export interface StaticServer {
  readonly origin: string
  readonly missing: ReadonlyArray<string>
  readonly close: () => Promise<void>
}

/** Serves `root` on 127.0.0.1 at `port` (0: a free one); a folder's path serves its `index.html`. */
export const serve = async (root: string, port = 0): Promise<StaticServer> => {
  const missing: Array<string> = []
  const server = Http.createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? "/", "http://localhost").pathname)
    let file = Path.join(root, path)
    if (!file.startsWith(root)) file = root
    if (Fs.existsSync(file) && Fs.statSync(file).isDirectory()) file = Path.join(file, "index.html")
    if (!Fs.existsSync(file)) {
      missing.push(path)
      response.writeHead(404, { "content-type": "text/plain" }).end(`not found: ${path}`)
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
