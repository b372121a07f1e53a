#!/usr/bin/env node
// The compiled CLI (`npm run build` writes dist/). Node 22 and later can keep compiled code between runs, which
// shortens the start-up of a command that loads this many modules; older Node starts without it.
import * as Module from "node:module"

Module.enableCompileCache?.()
await import("../dist/esm/bin.js")
