#!/usr/bin/env node
// The bundled CLI (`npm run build` writes dist/). Node 22 and later can keep compiled code between runs, which
// shortens every start; older Node starts without it.
import * as Fs from "node:fs"
import * as Module from "node:module"

const bundle = new URL("../dist/leasehold.js", import.meta.url)
if (!Fs.existsSync(bundle)) {
  // Only a clone of the repository lacks dist/; a published package always has it.
  process.stderr.write(
    "leasehold: not built yet: run `npm run build` in the repository first, " +
      "or `npm run -s leasehold -- ...`, which runs the sources\n"
  )
  process.exit(1)
}
Module.enableCompileCache?.()
await import(bundle.href)
