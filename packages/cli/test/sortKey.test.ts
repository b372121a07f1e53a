/**
 * `leasehold` on a table with a sort key (stores with `sortKey`, each family of locks one partition), against one
 * dynalite for the file: every command reads the key schema from the table and works as on a table without one,
 * semaphores in the family included; `table create --sort-key` makes such a table and `table check` accepts it.
 */
import { expect, layer } from "@effect/vitest"
import { DynamoLockTable } from "@leasehold/dynamodb"
import type { LockLost } from "@leasehold/lock/LockError"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import { Effect, Layer } from "effect"
import { CliBundleLive, holdLock, holdPermits, run, storeOn, unique } from "./support.js"

const TestLive = Layer.mergeAll(DynamoServer.layerDynalite, CliBundleLive)

const timeout = 60_000

/** A fresh table keyed `{key: S (hash), name: S (range)}` (or another partition key), and the CLI's flags for it. */
const makeSortedTable = (partitionKey = "key") =>
  Effect.gen(function*() {
    const server = yield* DynamoServer.DynamoServer
    const tableName = unique("sorted")
    const keys = { partitionKey, sortKey: "name" }
    yield* DynamoLockTable.createTable({ tableName, clientConfig: server.clientConfig, ...keys })
    const store = (prefix?: string) =>
      storeOn(server.clientConfig, tableName, { ...keys, ...(prefix === undefined ? {} : { prefix }) })
    return { tableName, store, flags: ["--endpoint", server.clientConfig.endpoint, "--table", tableName] }
  })

layer(TestLive, { timeout: "60 seconds", excludeTestServices: true })("leasehold on a table with a sort key", (it) => {
  it.scoped(
    "list shows the family's locks by name and its semaphores, and --prefix picks another family",
    () =>
      Effect.gen(function*() {
        const { flags, store } = yield* makeSortedTable()
        const store0 = yield* store()
        yield* holdLock(store0, "orders/1", { holder: "worker-a", lease: "30 seconds" })
        yield* holdLock(store0, "orders/2", { holder: "worker-b", lease: "30 seconds" })
        yield* holdPermits(store0, "partner-api", { limit: 3, permits: 2, holder: "worker-c", lease: "30 seconds" })
        yield* holdLock(yield* store("billing"), "close-books", { holder: "accountant", lease: "30 seconds" })

        const [text, json, billing] = yield* Effect.all([
          run(["list", ...flags]),
          run(["list", ...flags, "--json"]),
          run(["list", ...flags, "--json", "--prefix", "billing"])
        ], { concurrency: 2 })
        expect(text.code, text.stderr).toBe(0)
        expect(text.stdout).toMatch(/orders\/1\s+worker-a/)
        expect(text.stdout).toMatch(/orders\/2\s+worker-b/)
        expect(text.stdout).toMatch(/partner-api\s+2\s+3\s+worker-c \(2\)/)
        expect(text.stdout).not.toMatch(/^leasehold\s/m) // the family's partition key value is no lock's name

        const listed = JSON.parse(json.stdout)
        expect(listed.locks.map((lock: any) => [lock.name, lock.holder])).toEqual([
          ["orders/1", "worker-a"],
          ["orders/2", "worker-b"]
        ])
        expect(listed.semaphores.map((semaphore: any) => [semaphore.name, semaphore.used, semaphore.limit])).toEqual([
          ["partner-api", 2, 3]
        ])
        const other = JSON.parse(billing.stdout)
        expect(other.locks.map((lock: any) => lock.name)).toEqual(["close-books"])
        expect(other.semaphores).toEqual([])
      }),
    timeout
  )

  it.scoped("inspect, release and watch work on its locks and semaphores", () =>
    Effect.gen(function*() {
      const { flags, store } = yield* makeSortedTable("family")
      const store0 = yield* store()
      const lease = yield* holdLock(store0, "stuck", { holder: "victim", lease: "1 second" })
      const permits = yield* holdPermits(store0, "pool", { limit: 2, holder: "dying", lease: "1 second" })

      const [inspected, inspectedSemaphore, watched] = yield* Effect.all([
        run(["inspect", "stuck", ...flags, "--json"]),
        run(["inspect", "--semaphore", "pool", ...flags, "--json"]),
        run(["watch", ...flags, "--count", "1"])
      ], { concurrency: 2 })
      expect(inspected.code, inspected.stderr).toBe(0)
      expect(JSON.parse(inspected.stdout)).toMatchObject({ name: "stuck", holder: "victim", fence: lease.fence })
      expect(inspectedSemaphore.code, inspectedSemaphore.stderr).toBe(0)
      expect(JSON.parse(inspectedSemaphore.stdout)).toMatchObject({
        name: "pool",
        holders: [{ holder: "dying", owner: permits.owner }]
      })
      expect(watched.code, watched.stderr).toBe(0)
      expect(watched.stdout).toMatch(/snapshot name="stuck" holder="victim"/)
      expect(watched.stdout).toMatch(/snapshot semaphore name="pool" used=1 limit=2 holders="dying \(1\)"/)

      const released = yield* run(["release", "stuck", "--force", "--yes", ...flags])
      expect(released.code, released.stderr).toBe(0)
      expect(released.stdout).toContain("released \"stuck\": removed holder victim")
      const lockLost: LockLost = yield* Effect.flip(lease.lost).pipe(Effect.timeout("10 seconds"))
      expect(lockLost.reason).toBe("freed")

      const freed = yield* run([
        "release",
        "pool",
        "--semaphore",
        "--owner",
        permits.owner,
        "--force",
        "--yes",
        ...flags
      ])
      expect(freed.code, freed.stderr).toBe(0)
      expect(freed.stdout).toContain("released 1 permit of semaphore \"pool\": removed holder dying")
      const permitsLost: LockLost = yield* Effect.flip(permits.lost).pipe(Effect.timeout("10 seconds"))
      expect(permitsLost.name).toBe("pool")
    }), timeout)

  it.scoped(
    "the lock \"#x\" and the semaphore \"x\" share a key: each is pointed to, and neither called hand-edited",
    () =>
      Effect.gen(function*() {
        const { flags, store } = yield* makeSortedTable("family")
        const store0 = yield* store()
        yield* holdPermits(store0, "jobs", { limit: 2, lease: "30 seconds" })
        yield* holdLock(store0, "#cron", { holder: "scheduler", lease: "30 seconds" })
        const [lockOfSemaphore, semaphoreOfLock, releaseOfSemaphore, list] = yield* Effect.all([
          run(["inspect", "#jobs", ...flags]),
          run(["inspect", "--semaphore", "cron", ...flags]),
          run(["release", "#jobs", "--force", "--yes", ...flags]),
          run(["list", ...flags, "--json"])
        ], { concurrency: 2 })
        for (const result of [lockOfSemaphore, releaseOfSemaphore]) {
          expect(result.code).toBe(3)
          expect(result.stderr).toContain("its key holds the semaphore \"jobs\"")
          expect(result.stderr).toContain("`leasehold inspect --semaphore jobs`")
        }
        expect(semaphoreOfLock.code).toBe(3)
        expect(semaphoreOfLock.stderr).toContain("its key holds the lock \"#cron\"")
        expect(semaphoreOfLock.stderr).toContain("`leasehold inspect '#cron'`")
        for (const result of [lockOfSemaphore, semaphoreOfLock, releaseOfSemaphore]) {
          expect(result.stderr).not.toMatch(/by hand|malformed|delete/)
        }
        const listed = JSON.parse(list.stdout)
        expect(listed.locks.map((lock: any) => lock.name)).toEqual(["#cron"])
        expect(listed.semaphores.map((semaphore: any) => semaphore.name)).toEqual(["jobs"])
      }),
    timeout
  )

  it.effect(
    "table create --sort-key makes such a table; table check accepts it, or checks the keys given",
    () =>
      Effect.gen(function*() {
        const server = yield* DynamoServer.DynamoServer
        const tableName = unique("created-sorted")
        const flags = ["--endpoint", server.clientConfig.endpoint, "--table", tableName]
        const created = yield* run(["table", "create", ...flags, "--sort-key", "name"])
        expect(created.code, created.stderr).toBe(0)
        expect(created.stdout).toContain(`created table "${tableName}"`)
        expect(created.stdout).toContain(`partition key "key", sort key "name"); stores on it need { sortKey: "name" }`)

        const [found, given, wrong] = yield* Effect.all([
          run(["table", "check", ...flags, "--json"]),
          run(["table", "check", ...flags, "--sort-key", "name"]),
          run(["table", "check", ...flags, "--json", "--sort-key", "sk"])
        ], { concurrency: 2 })
        expect(found.code, found.stdout).toBe(0)
        expect(JSON.parse(found.stdout)).toMatchObject({ ok: true, keys: { partitionKey: "key", sortKey: "name" } })
        expect(given.code, given.stdout).toBe(0)
        expect(given.stdout).toContain("is ready for locks (partition key \"key\", sort key \"name\")")
        expect(wrong.code).toBe(1)
        expect(JSON.parse(wrong.stdout).problems.map((problem: any) => problem.problem)).toEqual(["KeySchemaMismatch"])

        const list = yield* run(["list", ...flags])
        expect(list.code, list.stderr).toBe(0)
        expect(list.stdout).toBe(`no locks or semaphores in table "${tableName}" (family "leasehold")\n`)

        const endpoint = flags.slice(0, 2)
        const [custom, invalid] = yield* Effect.all([
          run([
            "table",
            "create",
            ...endpoint,
            "--table",
            unique("custom"),
            "--partition-key",
            "pk",
            "--sort-key",
            "sk"
          ]),
          run(["table", "create", ...endpoint, "--table", unique("invalid"), "--partition-key", "limit"])
        ], { concurrency: 2 })
        expect(custom.code, custom.stderr).toBe(0)
        expect(custom.stdout).toContain(`stores on it need { partitionKey: "pk", sortKey: "sk" }`)
        expect(invalid.code).toBe(2)
        expect(invalid.stderr).toContain("--partition-key: partitionKey \"limit\" is one of the lock and semaphore")
      }),
    timeout
  )

  it.effect("a table no lock store can use is refused before any lock is read", () =>
    Effect.gen(function*() {
      const server = yield* DynamoServer.DynamoServer
      const tableName = unique("numeric")
      const { CreateTableCommand, DynamoDBClient } = yield* Effect.promise(() => import("@aws-sdk/client-dynamodb"))
      const client = new DynamoDBClient(server.clientConfig)
      yield* Effect.promise(() =>
        client.send(
          new CreateTableCommand({
            TableName: tableName,
            BillingMode: "PAY_PER_REQUEST",
            KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
            AttributeDefinitions: [{ AttributeName: "id", AttributeType: "N" }]
          })
        )
      ).pipe(Effect.ensuring(Effect.sync(() => client.destroy())))
      const list = yield* run(["list", "--endpoint", server.clientConfig.endpoint, "--table", tableName])
      expect(list.code).toBe(1)
      expect(list.stderr).toContain(`table "${tableName}" at ${server.clientConfig.endpoint} has key schema {id: N}`)
    }), timeout)
})
