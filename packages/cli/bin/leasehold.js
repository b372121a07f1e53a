#!/usr/bin/env node
// The compiled CLI; `npm run build` writes dist/.
import "../dist/esm/bin.js"
