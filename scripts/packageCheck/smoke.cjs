// The CommonJS twin of smoke.mjs: the same locks through the installed packages' `require` entry points.
const { DynamoLockStore } = require("@leasehold/dynamodb")
const { Lock, LockStore } = require("@leasehold/lock")
const { DynamoServer } = require("@leasehold/testing")
const { Effect, Layer } = require("effect")

const twoFences = Effect.gen(function*() {
  const fence = Effect.scoped(Effect.map(Lock.acquire("package-check/inner"), (lease) => lease.fence))
  const first = yield* Lock.withLock("package-check", fence)
  const second = yield* fence
  return [first, second]
})

const memory = twoFences.pipe(Effect.provide(LockStore.layerMemory))

const dynalite = Effect.gen(function*() {
  const server = yield* DynamoServer.DynamoServer
  const tableName = "package-check"
  yield* DynamoLockStore.createTable({ tableName, clientConfig: server.clientConfig })
  return yield* twoFences.pipe(
    Effect.provide(DynamoLockStore.layer({ tableName, clientConfig: server.clientConfig }))
  )
}).pipe(Effect.provide(Layer.fresh(DynamoServer.layerDynalite)))

let internalImport = "importable"
try {
  require("@leasehold/lock/internal/keeper")
} catch (e) {
  internalImport = e.code
}

Effect.runPromise(Effect.all({ memory, dynalite })).then((result) => {
  console.log(JSON.stringify({ format: "cjs", node: process.version, ...result, internalImport }))
})
