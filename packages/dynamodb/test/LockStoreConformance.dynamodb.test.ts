/**
 * The shared LockStore conformance suite, run against the DynamoDB store: on dynalite in both key layouts, and on
 * DynamoDB Local when the run has it. The clock-skew guard is off: the suite drives a TestClock that is not the
 * server's clock.
 */
import { afterAll, beforeAll, describe } from "@effect/vitest"
import { DynamoLockStore, DynamoLockTable } from "@leasehold/dynamodb"
import { LockStoreConformance } from "@leasehold/testing"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import { Effect, Exit, Scope } from "effect"
import { inject } from "vitest"

interface Server {
  readonly clientConfig: DynamoServer.ClientConfig
  readonly tables: { readonly plain: string; readonly sorted: string }
}

/** Starts a server (for the whole file) with one table per key layout. */
const startServer = (make: Effect.Effect<DynamoServer.Service, unknown, Scope.Scope>) => {
  let server: Server | undefined
  const scope = Effect.runSync(Scope.make())
  beforeAll(async () => {
    server = await Effect.runPromise(
      Effect.gen(function*() {
        const { clientConfig } = yield* make
        const plain = `conformance-${crypto.randomUUID()}`
        const sorted = `conformance-sorted-${crypto.randomUUID()}`
        yield* DynamoLockTable.createTable({ tableName: plain, clientConfig })
        yield* DynamoLockTable.createTable({ tableName: sorted, clientConfig, sortKey: "name" })
        return { clientConfig, tables: { plain, sorted } }
      }).pipe(Scope.extend(scope))
    )
  }, 60_000)
  afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))
  return () => {
    if (server === undefined) throw new Error("the test server did not start")
    return server
  }
}

describe("dynalite", () => {
  const server = startServer(DynamoServer.makeDynalite)
  LockStoreConformance.suite("DynamoLockStore (partition key)", () =>
    DynamoLockStore.layer({
      tableName: server().tables.plain,
      clientConfig: server().clientConfig,
      clockSkewGuard: false
    }))
  LockStoreConformance.suite("DynamoLockStore (sort key)", () =>
    DynamoLockStore.layer({
      tableName: server().tables.sorted,
      clientConfig: server().clientConfig,
      sortKey: "name",
      clockSkewGuard: false
    }))
})

const local = inject("dynamodbLocal")

describe.skipIf(!local.run)(
  local.run ? `DynamoDB Local (${local.engine})` : `DynamoDB Local: SKIPPED (${local.reason})`,
  () => {
    const server = startServer(DynamoServer.makeEndpoint(local.run ? local.endpoint : "http://127.0.0.1:1"))
    LockStoreConformance.suite("DynamoLockStore (partition key)", () =>
      DynamoLockStore.layer({
        tableName: server().tables.plain,
        clientConfig: server().clientConfig,
        clockSkewGuard: false
      }))
  }
)
