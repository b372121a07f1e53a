// Run by the package check inside a fresh app, with plain `node`: the locks of scenario.cjs through the installed
// packages' ESM entry points, on the stores named on the command line, and what it saw as one JSON line.
//
//   node smoke.mjs memory dynalite    dynalite needs @leasehold/dynamodb and @leasehold/testing installed
import { Lock, LockStore } from "@leasehold/lock"
import { Effect, Layer } from "effect"
import * as Scenario from "./scenario.cjs"

const stores = process.argv.slice(2)

// An internal module is not part of the public surface.
const internalImport = await import("@leasehold/lock/internal/lease/keeper").then(() => "importable", (e) => e.code)

const modules = { Effect, Layer, Lock, LockStore }
const programs = {}
if (stores.includes("memory")) programs.memory = Scenario.memory(modules)
if (stores.includes("dynalite")) {
  const { DynamoLockStore } = await import("@leasehold/dynamodb")
  const { DynamoServer } = await import("@leasehold/testing")
  programs.dynalite = Scenario.dynalite({ ...modules, DynamoLockStore, DynamoServer })
  // AWS DynamoDB Local is an optional peer dependency the app did not install: starting it is a typed error.
  programs.dynamoDBLocal = Layer.build(DynamoServer.layerDynamoDBLocal).pipe(
    Effect.scoped,
    Effect.match({ onFailure: (error) => error.reason, onSuccess: () => "started" })
  )
}

const results = await Effect.runPromise(Effect.all(programs))
console.log(JSON.stringify({ format: "esm", node: process.version, ...results, internalImport }))
