/**
 * The shared LockStore conformance suite, run against the DynamoDB store: on dynalite in both key layouts, and on
 * DynamoDB Local when the run has it, and on DYNAMODB_ENDPOINT as well when it is set.
 *
 * The stores on the local engines have their default options, the clock-skew guard included: a store built under the
 * suite's TestClock reads the server's time on it, so the suite's moves of the TestClock are time passing, not skew.
 * DYNAMODB_ENDPOINT's store has the guard off: a remote server's clock is not this host's, and the suite's takeovers
 * with a zero skew bound allow no provable skew at all, which a host clock a few milliseconds off can show.
 */
import { DeleteTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb"
import { afterAll, beforeAll, describe } from "@effect/vitest"
import { DynamoLockStore, DynamoLockTable } from "@leasehold/dynamodb"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import * as LockStoreConformance from "@leasehold/testing/LockStoreConformance"
import { Effect, Exit, Scope } from "effect"
import { inject } from "vitest"

interface Server {
  readonly clientConfig: DynamoServer.ClientConfig
  readonly tables: { readonly plain: string; readonly sorted: string }
}

const deleteTables = (clientConfig: DynamoServer.ClientConfig, tables: ReadonlyArray<string>) =>
  Effect.promise(async () => {
    const client = new DynamoDBClient(clientConfig)
    for (const TableName of tables) await client.send(new DeleteTableCommand({ TableName })).catch(() => undefined)
    client.destroy()
  })

/** Starts a server (for the whole file) with one table per key layout. */
const startServer = (
  make: Effect.Effect<DynamoServer.Service, unknown, Scope.Scope>,
  options: { readonly deleteTables?: boolean } = {}
) => {
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
        if (options.deleteTables === true) {
          // A real account keeps what it is given: remove this run's tables when the file ends.
          yield* Scope.addFinalizer(scope, deleteTables(clientConfig, [plain, sorted]))
        }
        return { clientConfig, tables: { plain, sorted } }
      }).pipe(Effect.provideService(Scope.Scope, scope))
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
  LockStoreConformance.suite(
    "DynamoLockStore (partition key)",
    () => DynamoLockStore.layer({ tableName: server().tables.plain, clientConfig: server().clientConfig })
  )
  LockStoreConformance.suite(
    "DynamoLockStore (sort key)",
    () =>
      DynamoLockStore.layer({ tableName: server().tables.sorted, clientConfig: server().clientConfig, sortKey: "name" })
  )
})

const local = inject("dynamodbLocal")

describe.skipIf(!local.run)(
  local.run ? `DynamoDB Local (${local.engine})` : `DynamoDB Local: SKIPPED (${local.reason})`,
  () => {
    const server = startServer(DynamoServer.makeEndpoint(local.run ? local.endpoint : "http://127.0.0.1:1"))
    LockStoreConformance.suite(
      "DynamoLockStore (partition key)",
      () => DynamoLockStore.layer({ tableName: server().tables.plain, clientConfig: server().clientConfig })
    )
  }
)

const external = inject("externalEndpoint")

describe.skipIf(external === undefined)(`DYNAMODB_ENDPOINT (${external ?? "not set"})`, () => {
  const server = startServer(DynamoServer.makeEndpoint(external ?? "http://127.0.0.1:1"), { deleteTables: true })
  LockStoreConformance.suite("DynamoLockStore (partition key)", () =>
    DynamoLockStore.layer({
      tableName: server().tables.plain,
      clientConfig: server().clientConfig,
      clockSkewGuard: false
    }))
})
