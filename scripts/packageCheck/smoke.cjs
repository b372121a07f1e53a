// The CommonJS twin of smoke.mjs: the locks of scenario.cjs through the installed packages' `require` entry points.
//
//   node smoke.cjs memory dynalite
const { Lock, LockStore } = require("@leasehold/lock")
const { Effect, Layer } = require("effect")
const Scenario = require("./scenario.cjs")

const stores = process.argv.slice(2)

let internalImport = "importable"
try {
  require("@leasehold/lock/internal/lease/keeper")
} catch (e) {
  internalImport = e.code
}

const modules = { Effect, Layer, Lock, LockStore }
const programs = {}
if (stores.includes("memory")) programs.memory = Scenario.memory(modules)
if (stores.includes("dynalite")) {
  const { DynamoLockStore } = require("@leasehold/dynamodb")
  const { DynamoServer } = require("@leasehold/testing")
  programs.dynalite = Scenario.dynalite({ ...modules, DynamoLockStore, DynamoServer })
}

Effect.runPromise(Effect.all(programs)).then((results) => {
  console.log(JSON.stringify({ format: "cjs", node: process.version, ...results, internalImport }))
})
