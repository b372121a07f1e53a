// Run by the package check inside a fresh app, with plain `node`: takes a lock on the memory store and on an
// embedded dynalite through the installed packages' ESM entry points, and prints what it saw as one JSON line.
import { DynamoLockStore } from "@leasehold/dynamodb"
import { Lock, LockStore } from "@leasehold/lock"
import { DynamoServer } from "@leasehold/testing"
import { Effect, Layer } from "effect"

// Two acquisitions of one name in a row: the second lease's fence must be higher than the first's.
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

// An internal module is not part of the public surface.
const internalImport = await import("@leasehold/lock/internal/keeper").then(() => "importable", (e) => e.code)

// AWS DynamoDB Local is an optional peer dependency the app did not install: starting it is a typed error.
const dynamoDBLocal = Layer.build(DynamoServer.layerDynamoDBLocal).pipe(
  Effect.scoped,
  Effect.match({ onFailure: (error) => error.reason, onSuccess: () => "started" })
)

const result = await Effect.runPromise(Effect.all({ memory, dynalite, dynamoDBLocal }))
console.log(JSON.stringify({ format: "esm", node: process.version, ...result, internalImport }))
