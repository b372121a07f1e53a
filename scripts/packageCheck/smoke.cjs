// The CommonJS twin of smoke.mjs: the locks of scenario.cjs through the installed packages' `require` entry points.
const { DynamoLockStore } = require("@leasehold/dynamodb")
const { Lock, LockStore } = require("@leasehold/lock")
const { DynamoServer } = require("@leasehold/testing")
const { Effect, Layer } = require("effect")
const { locks } = require("./scenario.cjs")

let internalImport = "importable"
try {
  require("@leasehold/lock/internal/lease/keeper")
} catch (e) {
  internalImport = e.code
}

Effect.runPromise(locks({ DynamoLockStore, DynamoServer, Effect, Layer, Lock, LockStore })).then((fences) => {
  console.log(JSON.stringify({ format: "cjs", node: process.version, ...fences, internalImport }))
})
