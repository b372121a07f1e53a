/**
 * What an operator's tools read of a table, on a real server: `DynamoLockItems.list` (a family's locks and semaphores
 * together, in every key layout, page by page), `DynamoLockTable.describeKeys` and `DynamoLockTable.describeTtlState`.
 * Each engine's test file runs it.
 */
import { CreateTableCommand } from "@aws-sdk/client-dynamodb"
import type { Vitest } from "@effect/vitest"
import { expect } from "@effect/vitest"
import { DynamoLockItems, DynamoLockStore, DynamoLockTable } from "@leasehold/dynamodb"
import type { LockStore } from "@leasehold/lock"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import { Effect } from "effect"
import type { Engine } from "./behaviour.js"
import { TestClock } from "./effectLine.js"
import { acquireRequest, makeStore, makeTable, rawClient, unique } from "./support.js"

/** Sets the TestClock to the wall clock, so that lease times are realistic. */
const clockNow = Effect.suspend(() => TestClock.setTime(Date.now()))

const permitsRequest = (name: string) => ({
  name,
  owner: unique("owner"),
  holder: "worker-a",
  limit: 3,
  permits: 1,
  leaseMs: 10_000,
  data: undefined,
  takeover: { _tag: "Absolute", maxClockSkewMs: 10_000 },
  expired: [],
  create: true
} as const)

/** A lock and a semaphore taken through the store, as applications take them. */
const take = (store: LockStore.LockStore, locks: ReadonlyArray<string>, semaphores: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    for (const name of locks) expect((yield* store.tryAcquire(acquireRequest(name)))._tag).toBe("Acquired")
    for (const name of semaphores) expect((yield* store.tryAcquirePermits(permitsRequest(name)))._tag).toBe("Acquired")
  })

const names = (page: DynamoLockItems.Page) => page.items.map((item) => `${item._tag}:${item.record.name}`).sort()

/** Every page from the start, `limit` items at a time. */
const allPages = (options: DynamoLockItems.ListOptions, limit: number) =>
  Effect.gen(function*() {
    const pages: Array<DynamoLockItems.Page> = []
    let cursor: string | undefined = undefined
    do {
      const page: DynamoLockItems.Page = yield* DynamoLockItems.list({ ...options, cursor, limit })
      pages.push(page)
      cursor = page.cursor
    } while (cursor !== undefined && pages.length < 20)
    return pages
  })

const createRawTable = (tableName: string, hash: { readonly name: string; readonly type: "S" | "N" }) =>
  Effect.flatMap(rawClient, (client) =>
    Effect.promise(() =>
      client.send(
        new CreateTableCommand({
          TableName: tableName,
          BillingMode: "PAY_PER_REQUEST",
          KeySchema: [{ AttributeName: hash.name, KeyType: "HASH" }],
          AttributeDefinitions: [{ AttributeName: hash.name, AttributeType: hash.type }]
        })
      )
    ))

export const tableItemsBehaviour = (it: Vitest.MethodsNonLive<DynamoServer.DynamoServer>, engine: Engine) => {
  const layouts = [
    { label: "partition key only, no prefix", keys: {}, prefix: undefined },
    { label: "partition key only, prefix", keys: {}, prefix: "billing" },
    { label: "sort key, default family", keys: { partitionKey: "family", sortKey: "name" }, prefix: undefined },
    { label: "sort key, a family", keys: { partitionKey: "family", sortKey: "name" }, prefix: "billing" }
  ] as const

  for (const layout of layouts) {
    it.effect(`DynamoLockItems.list: a family's locks and semaphores together, and only its own (${layout.label})`, () =>
      Effect.gen(function*() {
        yield* clockNow
        const server = yield* DynamoServer.DynamoServer
        const { tableName } = yield* makeTable(layout.keys)
        const prefixed = (prefix: string | undefined) => prefix === undefined ? {} : { prefix }
        const store = yield* makeStore(tableName, { ...layout.keys, ...prefixed(layout.prefix) })
        const other = yield* makeStore(tableName, {
          ...layout.keys,
          ...prefixed(layout.prefix === undefined ? "other" : undefined)
        })
        yield* take(store, ["a", "b/c", "x#y"], ["a", "pool"])
        yield* take(other, ["theirs"], ["their-pool"])

        const options = { tableName, clientConfig: server.clientConfig, ...layout.keys, ...prefixed(layout.prefix) }
        const page = yield* DynamoLockItems.list(options)
        expect(page.cursor).toBeUndefined()
        expect(names(page)).toEqual(["Lock:a", "Lock:b/c", "Lock:x#y", "Semaphore:a", "Semaphore:pool"])
        const semaphore = page.items.find((item) => item._tag === "Semaphore" && item.record.name === "pool")
        expect(semaphore?._tag === "Semaphore" && semaphore.record).toMatchObject({ limit: 3, used: 1 })

        // One item a page: every item once, and the last page says there is no next one.
        const pages = yield* allPages(options, 1)
        expect(pages.flatMap((one) => names(one)).sort()).toEqual(names(page))
        expect(pages.every((one) => one.items.length <= 1)).toBe(true)
        expect(pages[pages.length - 1]?.cursor).toBeUndefined()
      }).pipe(Effect.scoped))
  }

  it.effect("DynamoLockItems.list refuses bad options before any request, and a cursor it did not make", () =>
    Effect.gen(function*() {
      const server = yield* DynamoServer.DynamoServer
      const { tableName } = yield* makeTable()
      const options = { tableName, clientConfig: server.clientConfig }
      const option = (error: { readonly _tag: string; readonly option?: string }) => [error._tag, error.option]
      expect(option(yield* Effect.flip(DynamoLockItems.list({ ...options, tableName: "ab" })))).toEqual([
        "LockConfigError",
        "tableName"
      ])
      expect(option(yield* Effect.flip(DynamoLockItems.list({ ...options, limit: 0 })))).toEqual([
        "LockConfigError",
        "limit"
      ])
      expect(option(yield* Effect.flip(DynamoLockItems.list({ ...options, sortKey: "name", prefix: "" })))).toEqual([
        "LockConfigError",
        "prefix"
      ])
      const cursor = yield* Effect.flip(DynamoLockItems.list({ ...options, cursor: "not a cursor" }))
      expect(cursor._tag).toBe("LockStoreError")
      expect(cursor._tag === "LockStoreError" && [cursor.operation, cursor.retryable]).toEqual(["list", false])
      expect(cursor.message).toContain("list cursor \"not a cursor\" is malformed")
    }).pipe(Effect.scoped))

  it.effect("DynamoLockTable.describeKeys: missing, a layout a store can use, or not", () =>
    Effect.gen(function*() {
      const server = yield* DynamoServer.DynamoServer
      const location = (tableName: string) => ({ tableName, clientConfig: server.clientConfig })
      const plain = yield* makeTable()
      const sorted = yield* makeTable({ partitionKey: "family", sortKey: "name" })
      const numeric = unique("numeric")
      yield* createRawTable(numeric, { name: "id", type: "N" })
      const namedLikeAnAttribute = unique("limit-keyed")
      yield* createRawTable(namedLikeAnAttribute, { name: "limit", type: "S" })

      expect(yield* DynamoLockTable.describeKeys(location(unique("missing")))).toEqual({ _tag: "Missing" })
      expect(yield* DynamoLockTable.describeKeys(location(plain.tableName))).toEqual({
        _tag: "Usable",
        partitionKey: "key",
        sortKey: undefined
      })
      expect(yield* DynamoLockTable.describeKeys(location(sorted.tableName))).toEqual({
        _tag: "Usable",
        partitionKey: "family",
        sortKey: "name"
      })
      expect(yield* DynamoLockTable.describeKeys(location(numeric))).toEqual({ _tag: "Unusable", keySchema: "{id: N}" })
      expect(yield* DynamoLockTable.describeKeys(location(namedLikeAnAttribute))).toEqual({
        _tag: "Unusable",
        keySchema: "{limit: S}"
      })
      const invalid = yield* Effect.flip(DynamoLockTable.describeKeys(location("ab")))
      expect(invalid._tag === "LockConfigError" && invalid.option).toBe("tableName")
    }).pipe(Effect.scoped))

  it.effect(
    `DynamoLockTable.describeTtlState: ${
      engine.ttl === "unsupported" ? "a server without TTL says so" : "enabled, or disabled on a table without it"
    }`,
    () =>
      Effect.gen(function*() {
        const server = yield* DynamoServer.DynamoServer
        const location = (tableName: string) => ({ tableName, clientConfig: server.clientConfig })
        const created = yield* makeTable()
        const raw = unique("raw")
        yield* createRawTable(raw, { name: "key", type: "S" })
        expect(yield* DynamoLockTable.describeTtlState(location(created.tableName))).toBe(engine.ttl)
        expect(yield* DynamoLockTable.describeTtlState(location(raw))).toBe(
          engine.ttl === "unsupported" ? "unsupported" : "disabled"
        )
        const missing = yield* Effect.flip(DynamoLockTable.describeTtlState(location(unique("missing"))))
        expect(missing._tag === "LockStoreError" && [missing.operation, missing.retryable]).toEqual([
          "checkTable",
          false
        ])
        // The store's own check agrees that a table without TTL on a server with TTL is a problem.
        const problems = yield* DynamoLockStore.checkTable(location(raw))
        expect(problems.map((problem) => problem._tag)).toEqual(["TtlDisabled"])
      }).pipe(Effect.scoped)
  )
}
