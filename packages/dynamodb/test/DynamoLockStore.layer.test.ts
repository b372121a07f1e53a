/**
 * Wiring: who owns the client, `layerConfig`'s configuration names, option validation, and request timeouts.
 */
import { DynamoDBClient, ListTablesCommand } from "@aws-sdk/client-dynamodb"
import { expect, layer } from "@effect/vitest"
import { DynamoLockItems, DynamoLockStore, DynamoLockTable } from "@leasehold/dynamodb"
import { LockStore } from "@leasehold/lock"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import { Cause, Context, Effect, Exit, Layer, Option, Scope } from "effect"
import { withConfig } from "./effectLine.js"
import { acquireRequest, awaitNothingPending, makeTable, makeTableAndStore, unique } from "./support.js"

layer(DynamoServer.layerDynalite)("DynamoLockStore wiring (dynalite)", (it) => {
  it.effect("a client the user passes is used as it is and outlives the layer", () =>
    Effect.gen(function*() {
      const server = yield* DynamoServer.DynamoServer
      const { tableName } = yield* makeTable()
      const client = new DynamoDBClient(server.clientConfig)
      yield* Effect.addFinalizer(() => Effect.sync(() => client.destroy()))
      const stackBefore = client.middlewareStack.identify()

      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(
        DynamoLockStore.layer({ tableName, client, clockSkewGuard: true }),
        scope
      )
      const store = Context.get(context, LockStore.LockStore)
      expect((yield* store.tryAcquire(acquireRequest(unique("owned"))))._tag).toBe("Acquired")
      yield* Scope.close(scope, Exit.void)

      // Not destroyed, and its middleware stack untouched (the skew probe goes on each command, not the client).
      const tables = yield* Effect.promise(() => client.send(new ListTablesCommand({})))
      expect(tables.TableNames).toContain(tableName)
      expect(client.middlewareStack.identify()).toEqual(stackBefore)
    }).pipe(Effect.scoped))

  it.effect("layerConfig reads LEASEHOLD_TABLE, LEASEHOLD_PREFIX, AWS_REGION and DYNAMODB_ENDPOINT", () =>
    Effect.gen(function*() {
      const server = yield* DynamoServer.DynamoServer
      const { tableName } = yield* makeTable()
      const config = {
        LEASEHOLD_TABLE: tableName,
        LEASEHOLD_PREFIX: "jobs/",
        AWS_REGION: server.clientConfig.region,
        DYNAMODB_ENDPOINT: server.clientConfig.endpoint
      }
      const name = unique("configured")
      const record = yield* Effect.gen(function*() {
        const store = yield* LockStore.LockStore
        const result = yield* store.tryAcquire(acquireRequest(name))
        expect(store.maxNameBytes).toBe(2048 - "jobs/#".length)
        return result
      }).pipe(
        Effect.provide(
          DynamoLockStore.layerConfig({
            clientConfig: server.clientConfig.credentials === undefined
              ? {}
              : { credentials: server.clientConfig.credentials },
            clockSkewGuard: false
          })
        ),
        withConfig(config)
      )
      expect(record._tag).toBe("Acquired")
      // The prefix went into the key.
      const plain = yield* DynamoLockStore.make({ tableName, clientConfig: server.clientConfig, prefix: "jobs/" })
      expect(Option.map(yield* plain.inspect(name), (r) => r.name)).toEqual(Option.some(name))

      const missing = yield* Effect.exit(
        Layer.build(DynamoLockStore.layerConfig()).pipe(withConfig({}))
      )
      expect(Exit.isFailure(missing) && Cause.pretty(missing.cause)).toContain("LEASEHOLD_TABLE")
    }).pipe(Effect.scoped))

  it.effect("invalid options fail make and layer with a typed LockConfigError naming the option, before any request", () =>
    Effect.gen(function*() {
      const server = yield* DynamoServer.DynamoServer
      const configError = (options: Partial<DynamoLockStore.Options>) =>
        Effect.gen(function*() {
          const error = yield* Effect.flip(
            DynamoLockStore.make({ tableName: "locks", clientConfig: server.clientConfig, ...options })
          )
          expect(error._tag).toBe("LockConfigError")
          expect(error.message).not.toBe("")
          return error.option
        })
      yield* server.resetRequests
      expect(yield* configError({ tableName: "x" })).toBe("tableName")
      expect(yield* configError({ partitionKey: "" })).toBe("partitionKey")
      expect(yield* configError({ partitionKey: "owner" })).toBe("partitionKey")
      expect(yield* configError({ sortKey: "key" })).toBe("sortKey")
      expect(yield* configError({ sortKey: "name", prefix: "" })).toBe("prefix")
      expect(yield* configError({ prefix: "p".repeat(2047) })).toBe("prefix")
      // Escaped, "#" takes two bytes: 1023 of them and the separator leave one byte, 1024 none.
      expect(yield* configError({ prefix: "#".repeat(1024) })).toBe("prefix")
      expect((yield* DynamoLockStore.make({ tableName: "locks", prefix: "#".repeat(1023) })).maxNameBytes).toBe(1)
      expect(yield* configError({ requestTimeout: 0 })).toBe("requestTimeout")
      expect(yield* configError({ ttlRetention: "-1 days" as never })).toBe("ttlRetention")
      expect(yield* configError({ ttlRetention: Infinity })).toBe("ttlRetention")
      expect(yield* configError({ maxRetries: -1 })).toBe("maxRetries")
      expect(yield* configError({ maxRetries: 1.5 })).toBe("maxRetries")

      // The layer fails to build with the same typed error (no defect).
      const layerError = yield* Effect.flip(
        Layer.build(DynamoLockStore.layer({ tableName: "x", clientConfig: server.clientConfig }))
      )
      expect(layerError._tag).toBe("LockConfigError")
      expect(layerError.option).toBe("tableName")
      expect(Object.fromEntries(yield* server.requests)).toEqual({})
    }).pipe(Effect.scoped))

  it.effect("every store option is checked on its raw value: a typed LockConfigError, not a defect or a default", () =>
    Effect.gen(function*() {
      const server = yield* DynamoServer.DynamoServer
      const optionOf = (options: Record<string, unknown>) =>
        Effect.map(
          Effect.flip(
            DynamoLockStore.make({
              tableName: "locks",
              clientConfig: server.clientConfig,
              ...options
            } as DynamoLockStore.Options)
          ),
          (error) => [error._tag, error.option]
        )
      yield* server.resetRequests
      const cases: ReadonlyArray<readonly [string, unknown]> = [
        ["tableName", 12345],
        ["tableName", "a/b"],
        ["tableName", "t".repeat(256)],
        ["partitionKey", 7],
        ["sortKey", 7],
        ["prefix", 7],
        ["requestTimeout", NaN],
        ["requestTimeout", -5],
        ["requestTimeout", "-5 seconds"],
        ["requestTimeout", 1.5],
        ["requestTimeout", "soon"],
        ["requestTimeout", [-1, 0]],
        ["requestTimeout", -1n],
        ["retryBaseDelay", NaN],
        ["retryBaseDelay", Infinity],
        ["ttlRetention", "Infinity"],
        ["ttlRetention", "0.5 millis"],
        ["maxRetries", NaN],
        ["maxRetries", "3"],
        ["clockSkewGuard", "yes"]
      ]
      for (const [option, value] of cases) {
        expect(yield* optionOf({ [option]: value }), `${option}: ${String(value)}`).toEqual(["LockConfigError", option])
      }
      expect(Object.fromEntries(yield* server.requests)).toEqual({})
    }).pipe(Effect.scoped))

  it.effect("createTable and checkTable fail with a typed LockConfigError on bad options, before any request", () =>
    Effect.gen(function*() {
      const server = yield* DynamoServer.DynamoServer
      const clientConfig = server.clientConfig
      const optionOf = <A, E extends { readonly _tag: string }>(self: Effect.Effect<A, E>) =>
        Effect.map(Effect.flip(self), (error) => [error._tag, "option" in error ? error.option : undefined])
      yield* server.resetRequests
      expect(yield* optionOf(DynamoLockTable.createTable({ tableName: "ab", clientConfig }))).toEqual([
        "LockConfigError",
        "tableName"
      ])
      expect(yield* optionOf(DynamoLockTable.checkTable({ tableName: "ab", clientConfig }))).toEqual([
        "LockConfigError",
        "tableName"
      ])
      expect(yield* optionOf(DynamoLockStore.checkTable({ tableName: "locks", partitionKey: "", clientConfig })))
        .toEqual(["LockConfigError", "partitionKey"])
      for (const activeTimeout of ["soon", NaN, -1, "-1 minutes", Infinity, 0, 2.5]) {
        const create = DynamoLockStore.createTable({
          tableName: "locks",
          clientConfig,
          activeTimeout: activeTimeout as DynamoLockTable.CreateTableOptions["activeTimeout"]
        })
        expect(yield* optionOf(create), String(activeTimeout)).toEqual(["LockConfigError", "activeTimeout"])
      }
      expect(Object.fromEntries(yield* server.requests)).toEqual({})
    }).pipe(Effect.scoped))

  it.effect("options that are not a record, null included, fail every entry point with a LockConfigError, before any request", () =>
    Effect.gen(function*() {
      const server = yield* DynamoServer.DynamoServer
      yield* server.resetRequests
      const notRecords: ReadonlyArray<readonly [string, unknown]> = [
        ["null", null],
        ["an array", [{ tableName: "locks" }]],
        ["\"locks\"", "locks"]
      ]
      for (const [shown, options] of notRecords) {
        const bad = options as never
        const entries: ReadonlyArray<readonly [string, Effect.Effect<unknown, unknown, Scope.Scope>]> = [
          ["make", DynamoLockStore.make(bad)],
          ["layer", Layer.build(DynamoLockStore.layer(bad))],
          ["layerConfig", Layer.build(DynamoLockStore.layerConfig(bad))],
          ["createTable", DynamoLockStore.createTable(bad)],
          ["checkTable", DynamoLockStore.checkTable(bad)],
          ["describeKeys", DynamoLockTable.describeKeys(bad)],
          ["describeTtlState", DynamoLockTable.describeTtlState(bad)],
          ["DynamoLockItems.list", DynamoLockItems.list(bad)]
        ]
        for (const [entry, effect] of entries) {
          const error = yield* Effect.flip(effect)
          expect(error, `${entry}: ${shown}`).toMatchObject({ _tag: "LockConfigError", option: "options" })
          const message = (error as { readonly message: string }).message
          expect(message, entry).toMatch(/^options must be a record of named options/)
          expect(message, entry).toContain(`; got ${shown}`)
        }
      }
      expect(Object.fromEntries(yield* server.requests)).toEqual({})
    }).pipe(Effect.scoped))

  it.effect("a request the server holds times out on the live clock (even under TestClock) and is aborted", () =>
    Effect.gen(function*() {
      const server = yield* DynamoServer.DynamoServer
      const { store } = yield* makeTableAndStore({ requestTimeout: "50 millis", maxRetries: 1, retryBaseDelay: 1 })
      yield* server.pause
      yield* Effect.addFinalizer(() => server.resume)
      // A read is retried once, and both timed-out requests are taken back by the client.
      const read = yield* Effect.flip(store.inspect(unique("held")))
      expect(read.retryable).toBe(true)
      expect(read.message).toContain("timed out (50 ms per request, 2 attempts)")
      yield* awaitNothingPending
      // An acquire's write that timed out may still be applied: it is reported, not retried behind the acquire's back.
      const error = yield* Effect.flip(store.tryAcquire(acquireRequest(unique("held"))))
      expect(error.retryable).toBe(true)
      expect(error.mayHaveApplied).toBe(true)
      expect(error.message).toContain("timed out (50 ms per request, 1 attempt)")
      yield* awaitNothingPending
    }).pipe(Effect.scoped))

  // Node fires a setTimeout longer than 2^31 - 1 ms at once: unclamped, such a timeout would fail every request.
  it.effect("a request timeout beyond Node's timer range does not time requests out", () =>
    Effect.gen(function*() {
      const { store } = yield* makeTableAndStore({ requestTimeout: "30 days", maxRetries: 0 })
      const result = yield* store.tryAcquire(acquireRequest(unique("patient")))
      expect(result._tag).toBe("Acquired")
    }).pipe(Effect.scoped))
})
