// Run by the package check inside a fresh app, with plain `node`: the locks of scenario.cjs through the installed
// packages' ESM entry points, and what it saw as one JSON line.
import { DynamoLockStore } from "@leasehold/dynamodb"
import { Lock, LockStore } from "@leasehold/lock"
import { DynamoServer } from "@leasehold/testing"
import { Effect, Layer } from "effect"
import { locks } from "./scenario.cjs"

// An internal module is not part of the public surface.
const internalImport = await import("@leasehold/lock/internal/lease/keeper").then(() => "importable", (e) => e.code)

// AWS DynamoDB Local is an optional peer dependency the app did not install: starting it is a typed error.
const dynamoDBLocal = Layer.build(DynamoServer.layerDynamoDBLocal).pipe(
  Effect.scoped,
  Effect.match({ onFailure: (error) => error.reason, onSuccess: () => "started" })
)

const program = Effect.all({
  fences: locks({ DynamoLockStore, DynamoServer, Effect, Layer, Lock, LockStore }),
  dynamoDBLocal
})
const { dynamoDBLocal: local, fences } = await Effect.runPromise(program)
console.log(JSON.stringify({ format: "esm", node: process.version, ...fences, dynamoDBLocal: local, internalImport }))
