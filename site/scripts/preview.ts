/**
 * `npm run site:preview`: serves the built site on the loopback interface (port 4173, or `PORT`), as a web server set
 * up for it would (`/guide/options` is the page `/guide/options.html`; a missing path gets the 404 page, which lists
 * the guide), until Ctrl-C.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { distRoot } from "./paths.js"
import { serve } from "./staticServer.js"

if (!Fs.existsSync(Path.join(distRoot, "index.html"))) {
  console.error("no built site: run `npm run site` first")
  process.exit(1)
}
const server = await serve(distRoot, Number(process.env["PORT"] ?? 4173))
console.log(`the site is at ${server.origin}/ (Ctrl-C stops it)`)
