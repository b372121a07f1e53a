/**
 * The DynamoDB store's behaviour on a real server over HTTP: expressions, fences, conflicts, table helpers, the
 * clock-skew guard and interruption. Each engine's test file runs it with what that engine is known to support.
 */
import { DeleteItemCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb"
import type { Vitest } from "@effect/vitest"
import { expect } from "@effect/vitest"
import type { DynamoLockTable } from "@leasehold/dynamodb"
import { DynamoLockStore } from "@leasehold/dynamodb"
import * as LeaseHandoff from "@leasehold/lock/LeaseHandoff"
import * as Lock from "@leasehold/lock/Lock"
import type { LockConfigError, LockStoreError, StoreOperation } from "@leasehold/lock/LockError"
import type { LockRecord } from "@leasehold/lock/LockRecord"
import * as LockStore from "@leasehold/lock/LockStore"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import * as Simulation from "@leasehold/testing/Simulation"
import { Clock, Effect, Exit, Fiber, Logger, Option, Schema, Scope } from "effect"
import { forkChild, logLevels, TestClock, withLogger } from "./effectLine.js"
import {
  acquireRequest,
  awaitNothingPending,
  counted,
  getRaw,
  makeStore,
  makeTable,
  makeTableAndStore,
  putRaw,
  rawClient,
  requests,
  unique
} from "./support.js"

export interface Engine {
  /** Whether a failed condition returns the old item (`ReturnValuesOnConditionCheckFailure`). */
  readonly returnsOldItems: boolean
  /** What `createTable` reports for TTL. */
  readonly ttl: DynamoLockTable.TtlStatus
}

const week = 7 * 24 * 60 * 60 * 1000

/** Sets the TestClock to the wall clock, so that times and TTLs are realistic and the server's Date agrees. */
const clockNow = Effect.gen(function*() {
  const now = Date.now()
  yield* TestClock.setTime(now)
  return now
})

/** What one Scan asked for and what the server says it did. */
interface ScanSeen {
  readonly limit: number | undefined
  readonly consistent: boolean | undefined
  /** Items examined, before the filter. */
  readonly scanned: number | undefined
  /** Items returned, after the filter. */
  readonly count: number | undefined
}

/** A client of the test's own that records every Scan (the store uses a given client as it is, middleware and all). */
const scanSpy = (scans: Array<ScanSeen>) =>
  Effect.flatMap(DynamoServer.DynamoServer, (server) =>
    Effect.acquireRelease(
      Effect.sync(() => {
        const client = new DynamoDBClient({ ...server.clientConfig, maxAttempts: 1 })
        client.middlewareStack.add(
          (next, context) => async (args) => {
            const result = await next(args)
            if (context.commandName === "ScanCommand") {
              const input = args.input as { readonly Limit?: number; readonly ConsistentRead?: boolean }
              const output = result.output as { readonly ScannedCount?: number; readonly Count?: number }
              scans.push({
                limit: input.Limit,
                consistent: input.ConsistentRead,
                scanned: output.ScannedCount,
                count: output.Count
              })
            }
            return result
          },
          { step: "initialize", name: "leaseholdTestScanSpy" }
        )
        return client
      }),
      (client) => Effect.sync(() => client.destroy())
    ))

const names = (records: ReadonlyArray<LockRecord>): Array<string> => records.map((record) => record.name)

/** Follows cursors from `request` to the end; the pages' records, at most 100 pages. */
const listPages = (store: LockStore.LockStore, request: LockStore.ListRequest) =>
  Effect.gen(function*() {
    const pages: Array<ReadonlyArray<LockRecord>> = []
    let cursor = request.cursor
    for (let i = 0; i < 100; i++) {
      const page: LockStore.ListPage = yield* store.list({ ...request, cursor })
      pages.push(page.records)
      cursor = page.cursor
      if (cursor === undefined) return pages
    }
    throw new Error("list did not finish within 100 pages")
  })

const acquired = (result: { readonly _tag: string; readonly record?: LockRecord }): LockRecord => {
  expect(result._tag).toBe("Acquired")
  return result.record!
}

/**
 * A table and a store with the clock-skew guard, and a lease on it that ended a minute ago by the clock everyone
 * agrees on; the TestClock is back at the wall clock's now.
 */
const guardedStoreWithEndedLease = Effect.gen(function*() {
  const now = yield* clockNow
  const { store, tableName } = yield* makeTableAndStore({ clockSkewGuard: true })
  yield* TestClock.setTime(now - 60_000)
  const ended = acquired(yield* store.tryAcquire(acquireRequest(unique("ended"), { leaseMs: 1_000 })))
  yield* TestClock.setTime(now)
  return { store, tableName, ended }
})

export const storeBehaviour = (it: Vitest.MethodsNonLive<DynamoServer.DynamoServer>, engine: Engine) => {
  it.effect("acquire writes the item in one UpdateItem: holder, lease, fence from the clock, ttl in seconds", () =>
    Effect.gen(function*() {
      const now = yield* clockNow
      const { store, tableName } = yield* makeTableAndStore()
      const request = acquireRequest(unique("orders"), { data: "payload" })
      const { requests: calls, result } = yield* counted(store.tryAcquire(request))
      const record = acquired(result)
      expect(record).toEqual({
        name: request.name,
        owner: request.owner,
        holder: "worker-a",
        leaseUntil: now + 10_000,
        leaseMs: 10_000,
        // A brand new name starts its fence from the writer's clock, as the memory store does.
        fence: now + 1,
        version: 1,
        sequence: 0,
        acquiredAt: now,
        data: "payload",
        reservedBy: undefined,
        reservedUntil: 0,
        reservedSince: 0,
        reservedFrom: 0
      })
      expect(calls).toEqual({ UpdateItem: 1 })
      const raw = yield* getRaw(tableName, { key: { S: request.name } })
      expect(raw.Item).toEqual({
        key: { S: request.name },
        owner: { S: request.owner },
        holder: { S: "worker-a" },
        leaseUntil: { N: String(now + 10_000) },
        leaseMs: { N: "10000" },
        fence: { N: String(now + 1) },
        version: { N: "1" },
        acquiredAt: { N: String(now) },
        data: { S: "payload" },
        ttl: { N: String(Math.ceil((now + 10_000 + week) / 1000)) }
      })
    }).pipe(Effect.scoped))

  it.effect("an uncontended acquire + release cycle is exactly 2 UpdateItem and no reads (server-counted)", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { store } = yield* makeTableAndStore()
      const request = acquireRequest(unique("cycle"))
      const { requests: calls, result } = yield* counted(Effect.gen(function*() {
        const record = acquired(yield* store.tryAcquire(request))
        return yield* store.release({ name: request.name, owner: request.owner, fence: record.fence })
      }))
      // The release answers the record it left, in the same call: free, with the acquire's fence.
      expect(result._tag).toBe("Released")
      expect(result._tag === "Released" ? [result.record?.owner, result.record?.fence] : []).toEqual([
        undefined,
        (yield* store.inspect(request.name)).pipe(Option.getOrThrow).fence
      ])
      expect(calls).toEqual({ UpdateItem: 2 })
    }).pipe(Effect.scoped))

  it.effect("a reservation is one UpdateItem that sets the reservation fields and nothing else", () =>
    Effect.gen(function*() {
      const now = yield* clockNow
      const { store, tableName } = yield* makeTableAndStore()
      const name = unique("reserved")
      acquired(yield* store.tryAcquire(acquireRequest(name)))
      const before = (yield* getRaw(tableName, { key: { S: name } })).Item
      const waiter = unique("waiter")
      const request = { name, owner: waiter, reserveMs: 800, graceMs: 300, waitingSince: now - 50 }
      const { requests: calls, result } = yield* counted(store.reserve(request))
      expect(result._tag).toBe("Reserved")
      expect(calls).toEqual({ UpdateItem: 1 })
      const raw = yield* getRaw(tableName, { key: { S: name } })
      expect(raw.Item).toEqual({
        ...before,
        reservedBy: { S: waiter },
        reservedUntil: { N: String(now + 800) },
        reservedSince: { N: String(now - 50) },
        reservedFrom: { N: String(now + 300) }
      })
    }).pipe(Effect.scoped))

  it.effect("release keeps the row and its fence; later acquisitions increment the fence", () =>
    Effect.gen(function*() {
      const now = yield* clockNow
      const { store, tableName } = yield* makeTableAndStore()
      const name = unique("fence")
      const first = acquired(yield* store.tryAcquire(acquireRequest(name, { data: "x" })))
      yield* TestClock.adjust("2 seconds")
      expect(yield* store.release({ name, owner: first.owner!, fence: first.fence })).toMatchObject({
        _tag: "Released"
      })

      const raw = yield* getRaw(tableName, { key: { S: name } })
      expect(raw.Item).toEqual({
        key: { S: name },
        leaseUntil: { N: "0" },
        leaseMs: { N: "10000" },
        fence: { N: String(first.fence) },
        version: { N: "2" },
        ttl: { N: String(Math.ceil((now + 2_000 + week) / 1000)) }
      })
      expect(yield* store.inspect(name)).toEqual(Option.some({
        name,
        owner: undefined,
        holder: undefined,
        leaseUntil: 0,
        leaseMs: 10_000,
        fence: first.fence,
        version: 2,
        sequence: 0,
        acquiredAt: undefined,
        data: undefined,
        reservedBy: undefined,
        reservedUntil: 0,
        reservedSince: 0,
        reservedFrom: 0
      }))

      const second = acquired(yield* store.tryAcquire(acquireRequest(name, { holder: "worker-b" })))
      expect(second.fence).toBe(first.fence + 1)
      expect(second.data).toBeUndefined()
      yield* store.release({ name, owner: second.owner!, fence: undefined })
      const third = acquired(yield* store.tryAcquire(acquireRequest(name)))
      expect(third.fence).toBe(first.fence + 2)
    }).pipe(Effect.scoped))

  it.effect("a row deleted by TTL restarts its fence from the writer's clock", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { store, tableName } = yield* makeTableAndStore()
      const name = unique("ttl")
      const first = acquired(yield* store.tryAcquire(acquireRequest(name)))
      yield* store.release({ name, owner: first.owner!, fence: first.fence })
      const client = yield* rawClient
      yield* Effect.promise(() =>
        client.send(new DeleteItemCommand({ TableName: tableName, Key: { key: { S: name } } }))
      )
      const later = yield* TestClock.adjust("1 hour").pipe(Effect.andThen(Clock.currentTimeMillis))
      const second = acquired(yield* store.tryAcquire(acquireRequest(name)))
      expect(second.fence).toBe(later + 1)
      expect(second.fence).toBeGreaterThan(first.fence)
      // A renew of the deleted holder finds nothing.
      expect(yield* store.renew({ name: unique("gone"), owner: "nobody", fence: 1, leaseMs: 1000 })).toEqual({
        _tag: "Lost",
        current: undefined
      })
    }).pipe(Effect.scoped))

  it.effect("renew extends the lease only for the same owner and fence", () =>
    Effect.gen(function*() {
      const now = yield* clockNow
      const { store, tableName } = yield* makeTableAndStore()
      const name = unique("renew")
      const held = acquired(yield* store.tryAcquire(acquireRequest(name)))
      yield* TestClock.adjust("3 seconds")
      const { requests: calls, result } = yield* counted(
        store.renew({ name, owner: held.owner!, fence: held.fence, leaseMs: 20_000 })
      )
      expect(calls).toEqual({ UpdateItem: 1 })
      expect(result).toEqual({
        _tag: "Renewed",
        record: { ...held, leaseUntil: now + 3_000 + 20_000, leaseMs: 20_000, version: held.version + 1 }
      })
      const raw = yield* getRaw(tableName, { key: { S: name } })
      expect(raw.Item?.ttl).toEqual({ N: String(Math.ceil((now + 23_000 + week) / 1000)) })
      // Idempotent: the same renew again succeeds.
      expect((yield* store.renew({ name, owner: held.owner!, fence: held.fence, leaseMs: 20_000 }))._tag).toBe(
        "Renewed"
      )

      // Two renews since the acquire, each a new version.
      const current = { ...held, leaseUntil: now + 23_000, leaseMs: 20_000, version: held.version + 2 }
      const wrongFence = yield* counted(store.renew({ name, owner: held.owner!, fence: held.fence - 1, leaseMs: 1 }))
      expect(wrongFence.result).toEqual({ _tag: "Lost", current })
      expect(wrongFence.requests).toEqual(engine.returnsOldItems ? { UpdateItem: 1 } : { UpdateItem: 1, GetItem: 1 })
      expect(yield* store.renew({ name, owner: "someone-else", fence: held.fence, leaseMs: 1 })).toEqual({
        _tag: "Lost",
        current
      })
    }).pipe(Effect.scoped))

  it.effect(
    `a conflict returns the current holder ${
      engine.returnsOldItems ? "from ALL_OLD, with no read" : "from one consistent GetItem (no ALL_OLD)"
    }`,
    () =>
      Effect.gen(function*() {
        yield* clockNow
        const { store } = yield* makeTableAndStore()
        const name = unique("conflict")
        const held = acquired(yield* store.tryAcquire(acquireRequest(name)))
        const { requests: calls, result } = yield* counted(
          store.tryAcquire(acquireRequest(name, { holder: "worker-b" }))
        )
        expect(result).toEqual({ _tag: "Conflict", current: held })
        expect(calls).toEqual(engine.returnsOldItems ? { UpdateItem: 1 } : { UpdateItem: 1, GetItem: 1 })
      }).pipe(Effect.scoped)
  )

  it.effect("absolute takeover: after leaseUntil + maxClockSkew, not before; the old holder's renew is Lost", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { store } = yield* makeTableAndStore()
      const name = unique("absolute")
      const a = acquired(yield* store.tryAcquire(acquireRequest(name, { leaseMs: 5_000 })))
      const b = acquireRequest(name, { holder: "worker-b", takeover: { _tag: "Absolute", maxClockSkewMs: 2_000 } })
      yield* TestClock.adjust(7_000)
      expect(yield* store.tryAcquire(b)).toEqual({ _tag: "Conflict", current: a })
      yield* TestClock.adjust(1)
      const taken = acquired(yield* store.tryAcquire(b))
      expect(taken.fence).toBe(a.fence + 1)
      expect(taken.owner).toBe(b.owner)
      expect(yield* store.renew({ name, owner: a.owner!, fence: a.fence, leaseMs: 5_000 })).toEqual({
        _tag: "Lost",
        current: taken
      })
      expect(yield* store.release({ name, owner: a.owner!, fence: a.fence })).toEqual({
        _tag: "NotHeld",
        current: taken
      })
    }).pipe(Effect.scoped))

  it.effect("observed takeover needs the exact stale observation; without one only a free lock is taken", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { store } = yield* makeTableAndStore()
      const name = unique("observed")
      const a = acquired(yield* store.tryAcquire(acquireRequest(name, { leaseMs: 5_000 })))
      // Long past any absolute bound: observed mode does not look at clocks.
      yield* TestClock.adjust("1 hour")
      const observed = (stale: { owner: string; fence: number; version: number } | undefined) =>
        acquireRequest(name, { holder: "worker-b", takeover: { _tag: "Observed", stale } })
      expect(yield* store.tryAcquire(observed(undefined))).toEqual({ _tag: "Conflict", current: a })
      const stale = { owner: a.owner!, fence: a.fence, version: a.version }
      expect(yield* store.tryAcquire(observed({ ...stale, version: a.version - 1 }))).toEqual({
        _tag: "Conflict",
        current: a
      })
      expect(yield* store.tryAcquire(observed({ ...stale, fence: a.fence + 1 }))).toEqual({
        _tag: "Conflict",
        current: a
      })
      const taken = acquired(yield* store.tryAcquire(observed(stale)))
      expect(taken.fence).toBe(a.fence + 1)
      // A free lock is taken without any observation.
      yield* store.release({ name, owner: taken.owner!, fence: taken.fence })
      expect((yield* store.tryAcquire(observed(undefined)))._tag).toBe("Acquired")
    }).pipe(Effect.scoped))

  it.effect("release needs the owner, and the fence when given; NotHeld tells the holder", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { store } = yield* makeTableAndStore()
      const name = unique("release")
      const held = acquired(yield* store.tryAcquire(acquireRequest(name)))
      expect(yield* store.release({ name, owner: held.owner!, fence: held.fence + 1 })).toEqual({
        _tag: "NotHeld",
        current: held
      })
      expect(yield* store.release({ name, owner: "someone-else", fence: undefined })).toEqual({
        _tag: "NotHeld",
        current: held
      })
      expect(yield* store.release({ name, owner: held.owner!, fence: undefined })).toMatchObject({ _tag: "Released" })
      expect(yield* store.release({ name, owner: held.owner!, fence: held.fence })).toEqual({
        _tag: "NotHeld",
        current: undefined
      })
      expect(yield* store.release({ name: unique("never"), owner: "x", fence: undefined })).toEqual({
        _tag: "NotHeld",
        current: undefined
      })
    }).pipe(Effect.scoped))

  it.effect("forceRelease clears any holder and returns it; a free lock gives none", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { store } = yield* makeTableAndStore()
      const name = unique("force")
      const held = acquired(yield* store.tryAcquire(acquireRequest(name, { data: "d" })))
      const { requests: calls, result } = yield* counted(store.forceRelease(name))
      expect(result).toEqual(Option.some(held))
      expect(calls).toEqual({ UpdateItem: 1 })
      expect(yield* store.forceRelease(name)).toEqual(Option.none())
      expect(yield* store.forceRelease(unique("never"))).toEqual(Option.none())
      const after = yield* store.inspect(name)
      expect(Option.map(after, (r) => [r.owner, r.fence])).toEqual(Option.some([undefined, held.fence]))
      const next = acquired(yield* store.tryAcquire(acquireRequest(name)))
      expect(next.fence).toBe(held.fence + 1)
    }).pipe(Effect.scoped))

  it.effect("inspect is one consistent GetItem; an unknown name is none", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { store } = yield* makeTableAndStore()
      const name = unique("inspect")
      const held = acquired(yield* store.tryAcquire(acquireRequest(name)))
      const { requests: calls, result } = yield* counted(store.inspect(name))
      expect(result).toEqual(Option.some(held))
      expect(calls).toEqual({ GetItem: 1 })
      expect(yield* store.inspect(unique("never"))).toEqual(Option.none())
    }).pipe(Effect.scoped))

  it.effect("partition-key mode: list is a paginated Scan that examines only what fills the page", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { tableName } = yield* makeTable()
      const scans: Array<ScanSeen> = []
      const store = yield* makeStore(tableName, { client: yield* scanSpy(scans), prefix: "app1/" })
      const ours = ["a/3", "b/1", "a/1", "a/5", "a/2", "a/4", "b/2", "c"]
      for (const name of ours) acquired(yield* store.tryAcquire(acquireRequest(name)))

      // Every item of the table matches: a page is one consistent Scan of `limit` items, not of the table.
      const { requests: calls, result: first } = yield* counted(store.list({ limit: 3 }))
      expect(calls).toEqual({ Scan: 1 })
      expect(scans).toEqual([{ limit: 3, consistent: true, scanned: 3, count: 3 }])
      expect(first.records).toHaveLength(3)
      // Opaque, not a name.
      expect(first.cursor).toMatch(/^[A-Za-z0-9_-]+$/)
      // A cursor is stateless: another store on the same table carries on from it.
      const again = yield* makeStore(tableName, { prefix: "app1/" })
      const rest = yield* listPages(again, { limit: 3, cursor: first.cursor })
      expect(rest.map((page) => page.length)).toEqual([3, 2])
      expect(names([first.records, ...rest].flat()).sort()).toEqual([...ours].sort())

      // Another family's items in the same table: a filtered page needs more (smaller) Scans, never more than the
      // page can hold, and walking every page examines each item of the table exactly once.
      const other = yield* makeStore(tableName, { prefix: "app2/" })
      for (let i = 0; i < 12; i++) acquired(yield* other.tryAcquire(acquireRequest(`a/${i}`)))
      scans.length = 0
      const pages = yield* listPages(store, { prefix: "a/", limit: 2 })
      for (const page of pages) expect(page.length).toBeLessThanOrEqual(2)
      expect(names(pages.flat()).sort()).toEqual(["a/1", "a/2", "a/3", "a/4", "a/5"])
      for (const scan of scans) expect(scan.limit).toBeLessThanOrEqual(2)
      expect(scans.reduce((total, scan) => total + (scan.scanned ?? 0), 0)).toBe(ours.length + 12)

      // The default page holds the family; a page that reaches the end of the table has no cursor.
      const all = yield* store.list({})
      expect(names(all.records).sort()).toEqual([...ours].sort())
      expect(all.cursor).toBeUndefined()
      const zero = yield* counted(Effect.flip(store.list({ limit: 0 })))
      expect(zero.requests).toEqual({})
      expect([zero.result.operation, zero.result.retryable]).toEqual(["list", false])
      expect(zero.result.message).toContain("list limit 0 is not a page size")
    }).pipe(Effect.scoped))

  it.effect("partition-key mode: a malformed list cursor is a non-retryable LockStoreError, before any request", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { store } = yield* makeTableAndStore()
      acquired(yield* store.tryAcquire(acquireRequest(unique("listed"))))
      const encode = (text: string) => Buffer.from(text, "utf8").toString("base64url")
      const cases: ReadonlyArray<readonly [string, string]> = [
        // A name, as cursors used to be.
        ["a/2", "it is not base64url text"],
        ["", "it is not base64url text"],
        [encode("not json"), "it does not decode to JSON"],
        [encode(JSON.stringify(["key"])), `it decodes to ["key"], not a start key of the form {"key":{"S":"..."}}`],
        [encode(JSON.stringify({ name: { S: "x" } })), `is not a start key of the form {"key":{"S":"..."}}`],
        [encode(JSON.stringify({ key: { N: "1" } })), `is not a start key of the form {"key":{"S":"..."}}`],
        [encode(JSON.stringify({ key: { S: "" } })), "its key value is 0 UTF-8 bytes"]
      ]
      for (const [cursor, problem] of cases) {
        const { requests: calls, result: error } = yield* counted(Effect.flip(store.list({ cursor })))
        expect(calls).toEqual({})
        expect(error._tag).toBe("LockStoreError")
        expect(error.operation).toBe("list")
        expect(error.retryable).toBe(false)
        expect(error.message).toContain("list cursor")
        expect(error.message).toContain("is malformed: ")
        expect(error.message).toContain(problem)
      }
    }).pipe(Effect.scoped))

  it.effect("sort-key mode: a family is one partition, listed by Query in name order", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { store, tableName } = yield* makeTableAndStore({ partitionKey: "family", sortKey: "name" })
      const other = yield* makeStore(tableName, { partitionKey: "family", sortKey: "name", prefix: "billing" })
      for (const name of ["c", "a", "b", "ab", "d"]) acquired(yield* store.tryAcquire(acquireRequest(name)))
      const theirs = acquired(yield* other.tryAcquire(acquireRequest("a")))
      expect(theirs.fence).toBeGreaterThan(0)

      const raw = yield* getRaw(tableName, { family: { S: "leasehold" }, name: { S: "ab" } })
      expect(raw.Item?.owner?.S).toBeDefined()
      const names = (page: { readonly records: ReadonlyArray<LockRecord> }) => page.records.map((r) => r.name)
      const { requests: calls, result: first } = yield* counted(store.list({ prefix: "a", limit: 1 }))
      expect(names(first)).toEqual(["a"])
      expect(calls).toEqual({ Query: 1 })
      const second = yield* store.list({ prefix: "a", limit: 1, cursor: first.cursor })
      expect(names(second)).toEqual(["ab"])
      expect(second.cursor).toBeUndefined()
      const page1 = yield* store.list({ limit: 3 })
      expect(names(page1)).toEqual(["a", "ab", "b"])
      const page2 = yield* store.list({ limit: 3, cursor: page1.cursor })
      expect(names(page2)).toEqual(["c", "d"])
      expect(page2.cursor).toBeUndefined()
      expect(names(yield* other.list({}))).toEqual(["a"])
      // A cursor that can not be a name of this store is rejected before any request.
      for (const cursor of ["", "x".repeat(1025)]) {
        const { requests: rejected, result: error } = yield* counted(Effect.flip(store.list({ cursor })))
        expect(rejected).toEqual({})
        expect([error.operation, error.retryable]).toEqual(["list", false])
        expect(error.message).toContain("is malformed")
      }
    }).pipe(Effect.scoped))

  it.effect("a name DynamoDB can not key fails every operation with a non-retryable LockStoreError, unsent", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { store, tableName } = yield* makeTableAndStore()
      const prefixed = yield* makeStore(tableName, { prefix: "app/" })
      const sorted = yield* makeTableAndStore({ sortKey: "name" })
      expect(store.maxNameBytes).toBe(2048)
      // The prefix "app/" and the "#" after it.
      expect(prefixed.maxNameBytes).toBe(2043)
      expect(sorted.store.maxNameBytes).toBe(1024)

      const rejects = (target: LockStore.LockStore, name: string, expected: ReadonlyArray<string>) =>
        Effect.gen(function*() {
          const operations: ReadonlyArray<readonly [StoreOperation, Effect.Effect<unknown, LockStoreError>]> = [
            ["tryAcquire", target.tryAcquire(acquireRequest(name))],
            ["renew", target.renew({ name, owner: "o", fence: 1, leaseMs: 1 })],
            ["release", target.release({ name, owner: "o", fence: 1 })],
            ["inspect", target.inspect(name)],
            ["forceRelease", target.forceRelease(name)]
          ]
          for (const [operation, self] of operations) {
            // A failure, not a defect and not an answer such as "absent" or "not held".
            const { requests: calls, result: error } = yield* counted(Effect.flip(self))
            expect(calls).toEqual({})
            expect(error._tag).toBe("LockStoreError")
            expect(error.operation).toBe(operation)
            expect(error.retryable).toBe(false)
            for (const part of expected) expect(error.message).toContain(part)
          }
        })
      // 2049 bytes: two-byte characters make the byte count, not the length, the limit.
      yield* rejects(store, "é".repeat(1024) + "x", ["2049 UTF-8 bytes", "limit of 2048", "has no prefix"])
      // Without a prefix, "#" and "\\" are escaped: 1024 of them make a key of 2048 bytes, one more is over.
      yield* rejects(store, "#\\".repeat(512) + "x", ["2049 UTF-8 bytes as a key", "take two bytes each"])
      yield* rejects(prefixed, "x".repeat(2044), ["2044 UTF-8 bytes", "limit of 2043", `prefix "app/" takes 5`])
      yield* rejects(sorted.store, "x".repeat(1025), ["1025 UTF-8 bytes", "limit of 1024", `prefix "leasehold"`])
      for (const target of [store, prefixed, sorted.store]) yield* rejects(target, "", ["must not be empty"])
      // At the limit it works.
      acquired(yield* store.tryAcquire(acquireRequest("é".repeat(1024))))
      acquired(yield* store.tryAcquire(acquireRequest("#\\".repeat(512))))
      acquired(yield* prefixed.tryAcquire(acquireRequest("#".repeat(2043))))
      acquired(yield* sorted.store.tryAcquire(acquireRequest("x".repeat(1024))))
    }).pipe(Effect.scoped))

  it.effect("partition-key mode: families are isolated for any two prefixes, the empty prefix included", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { tableName } = yield* makeTable()
      const family = (prefix: string) => makeStore(tableName, { prefix })
      const a = yield* family("a")
      const ab = yield* family("ab")
      const none = yield* family("")
      const hash = yield* family("a#")
      const backslash = yield* family("a\\")
      // Pairs whose prefix + name are the same string: each is a lock of its own.
      const taken = [
        [a, "bc"],
        [ab, "c"],
        [none, "abc"],
        [none, "a#bc"],
        [a, "#bc"],
        [hash, "bc"],
        [backslash, "#bc"],
        [none, "a\\#bc"]
      ] as const
      const records = []
      for (const [store, name] of taken) records.push(acquired(yield* store.tryAcquire(acquireRequest(name))))
      for (const [i, [store, name]] of taken.entries()) {
        expect(Option.map(yield* store.inspect(name), (r) => r.owner)).toEqual(Option.some(records[i]!.owner))
      }

      // What the keys look like: the escaped prefix, "#", the name; without a prefix, the escaped name.
      const key = (value: string) => ({ key: { S: value } })
      expect((yield* getRaw(tableName, key("a#bc"))).Item?.owner).toEqual({ S: records[0]!.owner })
      expect((yield* getRaw(tableName, key("abc"))).Item?.owner).toEqual({ S: records[2]!.owner })
      expect((yield* getRaw(tableName, key("a\\#bc"))).Item?.owner).toEqual({ S: records[3]!.owner })
      expect((yield* getRaw(tableName, key("a\\##bc"))).Item?.owner).toEqual({ S: records[5]!.owner })

      // Each family lists its own names only, whatever the list prefix; items of other families are skipped.
      const listed = (store: LockStore.LockStore, prefix?: string) =>
        Effect.map(
          listPages(store, prefix === undefined ? { limit: 2 } : { prefix, limit: 2 }),
          (pages) => names(pages.flat()).sort()
        )
      expect(yield* listed(a)).toEqual(["#bc", "bc"])
      expect(yield* listed(ab)).toEqual(["c"])
      expect(yield* listed(none)).toEqual(["a#bc", "a\\#bc", "abc"].sort())
      expect(yield* listed(none, "a")).toEqual(["a#bc", "a\\#bc", "abc"].sort())
      expect(yield* listed(none, "a#")).toEqual(["a#bc"])
      expect(yield* listed(hash)).toEqual(["bc"])
      expect(yield* listed(backslash)).toEqual(["#bc"])

      // A force release in one family leaves the other family's lock of the same key text alone.
      expect(Option.map(yield* ab.forceRelease("c"), (r) => r.owner)).toEqual(Option.some(records[1]!.owner))
      expect(Option.map(yield* a.inspect("bc"), (r) => r.owner)).toEqual(Option.some(records[0]!.owner))
      expect(yield* ab.forceRelease("c")).toEqual(Option.none())
    }).pipe(Effect.scoped))

  it.effect("sort-key mode: families are isolated, one partition each", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { tableName } = yield* makeTable({ sortKey: "name" })
      const a = yield* makeStore(tableName, { sortKey: "name", prefix: "a" })
      const ab = yield* makeStore(tableName, { sortKey: "name", prefix: "ab" })
      const first = acquired(yield* a.tryAcquire(acquireRequest("bc")))
      const second = acquired(yield* ab.tryAcquire(acquireRequest("c")))
      acquired(yield* ab.tryAcquire(acquireRequest("bc")))
      expect(names((yield* a.list({})).records)).toEqual(["bc"])
      expect(names((yield* ab.list({})).records)).toEqual(["bc", "c"])
      expect(Option.map(yield* a.forceRelease("bc"), (r) => r.owner)).toEqual(Option.some(first.owner))
      expect(Option.map(yield* ab.inspect("bc"), (r) => r.owner !== undefined)).toEqual(Option.some(true))
      expect(Option.map(yield* ab.inspect("c"), (r) => r.owner)).toEqual(Option.some(second.owner))
    }).pipe(Effect.scoped))

  it.effect("a name that is not well-formed UTF-16 fails every operation, unsent; such a prefix fails make", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { store, tableName } = yield* makeTableAndStore()
      const sorted = yield* makeTableAndStore({ sortKey: "name" })
      const prefixed = yield* makeStore(tableName, { prefix: "app" })
      for (const target of [store, prefixed, sorted.store]) {
        for (const name of ["orders/ab\uD83D", "orders/ab\uDC00", "\uDE00orders"]) {
          const operations: ReadonlyArray<Effect.Effect<unknown, LockStoreError>> = [
            target.tryAcquire(acquireRequest(name)),
            target.renew({ name, owner: "o", fence: 1, leaseMs: 1 }),
            target.release({ name, owner: "o", fence: 1 }),
            target.inspect(name),
            target.forceRelease(name)
          ]
          for (const self of operations) {
            const { requests: calls, result: error } = yield* counted(Effect.flip(self))
            expect(calls).toEqual({})
            expect([error._tag, error.retryable]).toEqual(["LockStoreError", false])
            expect(error.message).toContain("not well-formed UTF-16")
          }
        }
        // A well-formed name with the same start is a lock of its own.
        acquired(yield* target.tryAcquire(acquireRequest("orders/ab\uD83D\uDE00")))
        expect(names((yield* target.list({ prefix: "orders/ab\uD83D" })).records)).toEqual(["orders/ab\uD83D\uDE00"])
        expect((yield* target.list({ prefix: "orders/ab\uDE00" })).records).toEqual([])
      }
      const server = yield* DynamoServer.DynamoServer
      for (const options of [{ prefix: "app\uD83D" }, { prefix: "\uDC00", sortKey: "name" }]) {
        const error = yield* Effect.flip(
          DynamoLockStore.make({ tableName, clientConfig: server.clientConfig, ...options })
        )
        expect([error._tag, error.option]).toEqual(["LockConfigError", "prefix"])
        expect(error.message).toContain("not well-formed UTF-16")
      }
    }).pipe(Effect.scoped))

  it.effect("oversized data or holder is a non-retryable LockStoreError naming the limit, unsent", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { store } = yield* makeTableAndStore()
      const cases = [
        [{ data: "é".repeat(200_705) }, "data is 401410 UTF-8 bytes, over the limit of 401408"],
        [{ holder: "h".repeat(1025) }, "holder is 1025 UTF-8 bytes, over the limit of 1024"]
      ] as const
      for (const [overrides, message] of cases) {
        const { requests: calls, result: error } = yield* counted(
          Effect.flip(store.tryAcquire(acquireRequest(unique("big"), overrides)))
        )
        expect(calls).toEqual({})
        expect([error.operation, error.retryable]).toEqual(["tryAcquire", false])
        expect(error.message).toContain(message)
      }
    }).pipe(Effect.scoped))

  it.effect("a missing table is reported as such, with the fix", () =>
    Effect.gen(function*() {
      const server = yield* DynamoServer.DynamoServer
      const store = yield* makeStore("no-such-table-" + unique("t"))
      const error = yield* Effect.flip(store.tryAcquire(acquireRequest("x")))
      expect(error._tag).toBe("LockStoreError")
      expect(error.operation).toBe("tryAcquire")
      expect(error.retryable).toBe(false)
      expect(error.message).toContain(`table "no-such-table-`)
      expect(error.message).toContain(`not found at ${server.clientConfig.endpoint}`)
      expect(error.message).toContain("DynamoLockStore.createTable")
      expect(error.message).toContain("`leasehold table create --table no-such-table-")
    }).pipe(Effect.scoped))

  it.effect("an acquire on a missing table writes nothing, so it gives nothing back and says nothing about cleaning up", () =>
    Effect.gen(function*() {
      const store = yield* makeStore("no-such-table-" + unique("t"))
      const warnings: Array<string> = []
      const logger = Logger.make(({ logLevel, message }) => {
        if (logLevel === logLevels.Warn) warnings.push(String(message))
      })
      const { requests: sent, result: error } = yield* counted(Effect.flip(
        Effect.scoped(Lock.acquire("orders", { wait: "1 second" })).pipe(
          Effect.provideService(LockStore.LockStore, store),
          withLogger(logger)
        )
      ))
      expect(error._tag).toBe("LockStoreError")
      expect(error._tag === "LockStoreError" && error.mayHaveApplied).toBe(false)
      // The acquiring write, and no release after it.
      expect(sent).toEqual({ UpdateItem: 1 })
      expect(warnings.filter((warning) => warning.includes("clean up"))).toEqual([])
    }).pipe(Effect.scoped))

  it.effect("a table with another key schema is reported as such", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { tableName } = yield* makeTable({ partitionKey: "pk" })
      const store = yield* makeStore(tableName)
      const error = yield* Effect.flip(store.tryAcquire(acquireRequest("x")))
      expect(error._tag).toBe("LockStoreError")
      expect(error.retryable).toBe(false)
      expect(error.message).toContain(`table "${tableName}"'s key schema is not {key: S}`)
      const inspectError = yield* Effect.flip(store.inspect("x"))
      expect(inspectError.operation).toBe("inspect")
      expect(inspectError.message).toContain("key schema is not {key: S}")
    }).pipe(Effect.scoped))

  it.effect("a malformed item is a LockStoreError naming the key and the attribute", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { store, tableName } = yield* makeTableAndStore()
      const name = unique("malformed")
      yield* putRaw(tableName, {
        key: { S: name },
        owner: { S: "o" },
        holder: { S: "h" },
        leaseUntil: { N: "1" },
        leaseMs: { N: "1" },
        acquiredAt: { N: "1" },
        fence: { S: "seven" }
      })
      const error = yield* Effect.flip(store.inspect(name))
      expect(error._tag).toBe("LockStoreError")
      expect(error.message).toContain(`{"key":"${name}"}`)
      expect(error.message).toContain(`attribute "fence" should be a number (N)`)
      // The acquire's fence arithmetic fails on the server: the message still names the item and the fix.
      const conflict = yield* Effect.flip(store.tryAcquire(acquireRequest(name)))
      expect(conflict.operation).toBe("tryAcquire")
      expect(conflict.retryable).toBe(false)
      expect(conflict.message).toContain(`lock item {"key":"${name}"}`)
      expect(conflict.message).toContain(`"fence"`)
    }).pipe(Effect.scoped))

  it.effect(`createTable is idempotent and reports TTL as "${engine.ttl}"; checkTable lists problems`, () =>
    Effect.gen(function*() {
      const server = yield* DynamoServer.DynamoServer
      const tableName = unique("table")
      const options = { tableName, clientConfig: server.clientConfig }
      expect(yield* DynamoLockStore.createTable(options)).toEqual({ tableName, created: true, ttl: engine.ttl })
      expect(yield* DynamoLockStore.createTable(options)).toEqual({ tableName, created: false, ttl: engine.ttl })
      const problems = yield* DynamoLockStore.checkTable(options)
      expect(problems.map((p) => p._tag)).toEqual(engine.ttl === "enabled" ? [] : ["TtlDisabled"])

      const schema = yield* DynamoLockStore.checkTable({ ...options, sortKey: "name" })
      expect(schema.map((p) => p._tag)).toContain("KeySchemaMismatch")
      const missing = yield* DynamoLockStore.checkTable({ ...options, tableName: unique("missing") })
      expect(missing.map((p) => p._tag)).toEqual(["TableMissing"])

      const sorted = unique("table")
      expect(
        yield* DynamoLockStore.createTable({ ...options, tableName: sorted, partitionKey: "pk", sortKey: "sk" })
      ).toEqual({ tableName: sorted, created: true, ttl: engine.ttl })
    }).pipe(Effect.scoped))

  it.effect("createTable fails clearly when the name is taken by a table with another key schema", () =>
    Effect.gen(function*() {
      const server = yield* DynamoServer.DynamoServer
      const { tableName } = yield* makeTable({ partitionKey: "pk" })
      const error = yield* Effect.flip(DynamoLockStore.createTable({ tableName, clientConfig: server.clientConfig }))
      expect(error._tag).toBe("LockStoreError")
      expect("operation" in error && error.operation).toBe("createTable")
      expect(error.message).toContain(`table "${tableName}" has key schema {pk: S}, but the store expects {key: S}`)
    }).pipe(Effect.scoped))

  it.effect("createTable and checkTable failures name their own operation", () =>
    Effect.gen(function*() {
      const server = yield* DynamoServer.DynamoServer
      const options = { tableName: unique("table"), clientConfig: server.clientConfig }
      yield* server.pauseWith("refuse")
      yield* Effect.addFinalizer(() => server.resume)
      const fields = (error: LockStoreError | LockConfigError) =>
        error._tag === "LockStoreError" ? [error._tag, error.operation, error.retryable] : [error._tag, error.option]
      const check = yield* Effect.flip(DynamoLockStore.checkTable(options))
      expect(fields(check)).toEqual(["LockStoreError", "checkTable", true])
      expect(check.message).toContain("DescribeTable")
      const create = yield* Effect.flip(DynamoLockStore.createTable(options))
      expect(fields(create)).toEqual(["LockStoreError", "createTable", true])
    }).pipe(Effect.scoped))

  it.effect("clock-skew guard: refuses an absolute takeover while the local clock is far from the server's", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { store: a, tableName } = yield* makeTableAndStore({ clockSkewGuard: true })
      const name = unique("skew")
      const held = acquired(yield* a.tryAcquire(acquireRequest(name, { leaseMs: 1_000 })))
      // A process whose clock runs an hour ahead of the test's (which is the server's): every lease looks long
      // expired to it.
      const anHourAhead = Simulation.withClockOffset(60 * 60 * 1000)
      const absolute = acquireRequest(name, { holder: "worker-b" })

      // A fresh process knows no skew yet: it asks for a free lock first and measures with the answer.
      const b = yield* makeStore(tableName, { clockSkewGuard: true })
      const { requests: calls, result: error } = yield* counted(Effect.flip(anHourAhead(b.tryAcquire(absolute))))
      expect(error._tag).toBe("LockStoreError")
      expect(error.retryable).toBe(false)
      expect(error.message).toContain(`refusing to take over lock "${name}"`)
      expect(error.message).toMatch(/the local clock is at least \d+ ms ahead of DynamoDB's/)
      expect(error.message).toContain("maxClockSkew (10000 ms)")
      expect(error.message).toContain("NTP")
      expect(calls.UpdateItem).toBe(1)

      // A process that measured the skew on an earlier response refuses too.
      yield* anHourAhead(a.inspect(name))
      const again = yield* Effect.flip(anHourAhead(a.tryAcquire(absolute)))
      expect(again.message).toContain("refusing to take over")
      expect(Option.map(yield* a.inspect(name), (r) => r.owner)).toEqual(Option.some(held.owner))

      // Observed mode trusts no clock and is not refused.
      const stale = { owner: held.owner!, fence: held.fence, version: held.version }
      const taken = acquired(
        yield* anHourAhead(
          b.tryAcquire(acquireRequest(name, { holder: "worker-b", takeover: { _tag: "Observed", stale } }))
        )
      )
      expect(taken.fence).toBe(held.fence + 1)

      // A free lock is still acquired in absolute mode.
      yield* anHourAhead(b.release({ name, owner: taken.owner!, fence: taken.fence }))
      acquired(yield* anHourAhead(b.tryAcquire(absolute)))
    }).pipe(Effect.scoped))

  it.effect("clock-skew guard: a TestClock moved on is time passing for the whole test, not skew", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { store: a, tableName } = yield* makeTableAndStore({ clockSkewGuard: true })
      const name = unique("passing")
      const held = acquired(yield* a.tryAcquire(acquireRequest(name, { leaseMs: 1_000 })))
      // An hour of the test's time: far past the lease and the skew bound, while the server's clock moved on by
      // milliseconds. The stores were built under the TestClock and read the server's Date on it.
      yield* TestClock.adjust("1 hour")
      const b = yield* makeStore(tableName, { clockSkewGuard: true })
      // A fresh process measures first (a free-only write that conflicts), then takes over.
      const { requests: calls, result } = yield* counted(b.tryAcquire(acquireRequest(name, { holder: "worker-b" })))
      const taken = acquired(result)
      expect(taken.fence).toBe(held.fence + 1)
      expect(calls.UpdateItem).toBe(2)
      // The process that measured an hour ago (of the test's time) still trusts its estimate: one write.
      yield* TestClock.adjust("1 hour")
      const again = yield* counted(a.tryAcquire(acquireRequest(name, { holder: "worker-a" })))
      expect(acquired(again.result).fence).toBe(taken.fence + 1)
      expect(again.requests.UpdateItem).toBe(1)
    }).pipe(Effect.scoped))

  it.effect("clock-skew guard: with agreeing clocks an absolute takeover goes through; off, it is not consulted", () =>
    Effect.gen(function*() {
      // The first holder acquired 30 s ago (its lease long over); now the local clock agrees with the server's.
      const now = yield* clockNow
      yield* TestClock.setTime(now - 30_000)
      const { store: a, tableName } = yield* makeTableAndStore({ clockSkewGuard: true })
      const name = unique("agree")
      const held = acquired(yield* a.tryAcquire(acquireRequest(name, { leaseMs: 1_000 })))
      yield* clockNow

      const b = yield* makeStore(tableName, { clockSkewGuard: true })
      const { requests: calls, result } = yield* counted(b.tryAcquire(acquireRequest(name, { holder: "worker-b" })))
      expect(acquired(result).fence).toBe(held.fence + 1)
      // Measure first (a free-only write that conflicts), then take over.
      expect(calls.UpdateItem).toBe(2)

      // b now knows its skew is small: the next takeover is a single write.
      yield* TestClock.adjust("30 seconds")
      const again = yield* counted(b.tryAcquire(acquireRequest(name, { holder: "worker-c" })))
      expect(acquired(again.result).fence).toBe(held.fence + 2)
      expect(again.requests.UpdateItem).toBe(1)

      // Guard off: a clock an hour ahead takes over at once.
      yield* TestClock.adjust("1 hour")
      const unguarded = yield* makeStore(tableName, { clockSkewGuard: false })
      const { requests: single, result: forced } = yield* counted(unguarded.tryAcquire(acquireRequest(name)))
      expect(acquired(forced).fence).toBe(held.fence + 3)
      expect(single).toEqual({ UpdateItem: 1 })
    }).pipe(Effect.scoped))

  it.effect("clock-skew guard: after a wall-clock step, the skew is measured again before an absolute takeover", () =>
    Effect.gen(function*() {
      const { store: a, tableName, ended } = yield* guardedStoreWithEndedLease
      // And one live lease.
      const name = unique("step")
      const held = acquired(yield* a.tryAcquire(acquireRequest(name, { leaseMs: 30_000 })))
      const b = yield* makeStore(tableName, { clockSkewGuard: true })
      const absolute = acquireRequest(name, { holder: "worker-b" })
      // b measures its clock against the server's while the two agree: the live lease conflicts.
      expect((yield* b.tryAcquire(absolute))._tag).toBe("Conflict")

      // Then b's wall clock steps an hour ahead (an NTP step, a VM resumed); its monotonic clock does not. The
      // agreeing estimate no longer says anything about the wall clock: b measures again, with a free-only write.
      const stepped = Simulation.withClockOffset(60 * 60 * 1000)
      const { requests: calls, result: error } = yield* counted(Effect.flip(stepped(b.tryAcquire(absolute))))
      expect(error._tag).toBe("LockStoreError")
      expect(error.retryable).toBe(false)
      expect(error.message).toContain(`refusing to take over lock "${name}"`)
      expect(error.message).toMatch(/the local clock is at least \d+ ms ahead of DynamoDB's/)
      expect(calls.UpdateItem).toBe(1)
      expect(Option.map(yield* a.inspect(name), (r) => r.owner)).toEqual(Option.some(held.owner))

      // The clock steps back: the estimate taken with the stepped clock is stale in turn, so b measures again (in
      // agreement now) before it takes over the lease that really ended.
      const { requests: takeover, result } = yield* counted(
        b.tryAcquire(acquireRequest(ended.name, { holder: "worker-b" }))
      )
      expect(acquired(result).fence).toBe(ended.fence + 1)
      expect(takeover.UpdateItem).toBe(2)
    }).pipe(Effect.scoped))

  it.effect("clock-skew guard: a stale estimate that can not be measured again refuses the takeover", () =>
    Effect.gen(function*() {
      const { tableName, ended } = yield* guardedStoreWithEndedLease
      // A real client and server; only the responses' Date header goes missing once `withoutDate` is set.
      let withoutDate = false
      const server = yield* DynamoServer.DynamoServer
      const client = yield* Effect.acquireRelease(
        Effect.sync(() => {
          const inner = new DynamoDBClient(server.clientConfig).config.requestHandler as unknown as {
            handle: (request: unknown, options: unknown) => Promise<{ response: { headers: Record<string, string> } }>
          }
          const handle = async (request: unknown, options: unknown) => {
            const result = await inner.handle(request, options)
            if (withoutDate) delete result.response.headers.date
            return result
          }
          return new DynamoDBClient({
            ...server.clientConfig,
            maxAttempts: 1,
            requestHandler: { ...inner, handle } as never
          })
        }),
        (client) => Effect.sync(() => client.destroy())
      )
      const b = yield* makeStore(tableName, { clockSkewGuard: true, client })
      // b measures in agreement with the server.
      expect(Option.isSome(yield* b.inspect(ended.name))).toBe(true)
      withoutDate = true

      // The wall clock steps; the answer to the free-only write has no Date to measure with: fail closed.
      const error = yield* Effect.flip(
        Simulation.withClockOffset(30 * 60 * 1000)(b.tryAcquire(acquireRequest(ended.name, { holder: "worker-b" })))
      )
      expect([error._tag, error.retryable]).toEqual(["LockStoreError", false])
      expect(error.message).toContain(`refusing to take over lock "${ended.name}"`)
      expect(error.message).toContain("the wall clock moved 1800000 ms against the monotonic clock")
      expect(error.message).toContain("no Date header")

      // Without a step the estimate still holds, and the takeover is one write.
      const { requests: calls, result } = yield* counted(b.tryAcquire(acquireRequest(ended.name)))
      expect(acquired(result).fence).toBe(ended.fence + 1)
      expect(calls.UpdateItem).toBe(1)
    }).pipe(Effect.scoped))

  it.effect("interrupting an acquire while its request is in flight aborts the request", () =>
    Effect.gen(function*() {
      yield* clockNow
      const server = yield* DynamoServer.DynamoServer
      const { store } = yield* makeTableAndStore()
      const name = unique("abort")
      yield* server.resetRequests
      yield* server.pause
      yield* Effect.addFinalizer(() => server.resume)
      const fiber = yield* forkChild(store.tryAcquire(acquireRequest(name)))
      // The request has reached the (paused) server.
      yield* server.awaitPending(1)
      yield* Fiber.interrupt(fiber)
      // The client gave up on it: the aborted request leaves the server's queue without being answered ...
      yield* awaitNothingPending
      yield* server.resume
      // ... so it was never applied.
      expect(yield* store.inspect(name)).toEqual(Option.none())
      expect((yield* requests).UpdateItem).toBe(1)
    }).pipe(Effect.scoped))

  it.effect("a store whose scope has closed abandons its requests in flight and sends no more", () =>
    Effect.gen(function*() {
      yield* clockNow
      const server = yield* DynamoServer.DynamoServer
      const { tableName } = yield* makeTable()
      const scope = yield* Scope.make()
      const store = yield* makeStore(tableName).pipe(Effect.provideService(Scope.Scope, scope))
      const name = unique("closing")
      yield* server.pause
      yield* Effect.addFinalizer(() => server.resume)
      const inFlight = yield* forkChild(store.tryAcquire(acquireRequest(name)))
      yield* server.awaitPending(1)
      // The program the store was provided to ends while the server holds its request.
      yield* Scope.close(scope, Exit.void)
      const abandoned = yield* Effect.flip(Fiber.join(inFlight))
      expect([abandoned._tag, abandoned.operation, abandoned.retryable]).toEqual([
        "LockStoreError",
        "tryAcquire",
        false
      ])
      expect(abandoned.message).toContain(`UpdateItem on table "${tableName}" was abandoned in flight`)
      expect(abandoned.message).toContain("the store's scope has closed")
      yield* awaitNothingPending
      yield* server.resume
      // Nothing more is sent, retried or new.
      yield* server.resetRequests
      const late = yield* Effect.flip(store.release({ name, owner: "owner", fence: 1 }))
      expect([late.operation, late.retryable]).toEqual(["release", false])
      expect(late.message).toContain("was not sent: the store's scope has closed")
      expect(yield* requests).toEqual({})
    }).pipe(Effect.scoped))

  it.effect("a server that refuses connections is a retryable LockStoreError after the bounded retries", () =>
    Effect.gen(function*() {
      yield* clockNow
      const server = yield* DynamoServer.DynamoServer
      const { store } = yield* makeTableAndStore({ maxRetries: 2, retryBaseDelay: "1 millis" })
      yield* server.pauseWith("refuse")
      yield* Effect.addFinalizer(() => server.resume)
      const error = yield* Effect.flip(store.tryAcquire(acquireRequest(unique("refused"))))
      yield* server.resume
      expect(error._tag).toBe("LockStoreError")
      expect(error.retryable).toBe(true)
      expect(error.message).toContain(`could not reach DynamoDB at ${server.clientConfig.endpoint}`)
      expect(error.message).toContain("3 attempts")
    }).pipe(Effect.scoped))

  it.effect("a lease handed off goes on through another client: the resume is exactly one UpdateItem", () =>
    Effect.gen(function*() {
      const now = yield* clockNow
      const { store: first, tableName } = yield* makeTableAndStore()
      // Another store instance with its own client: another process, or the next Lambda invocation.
      const second = yield* makeStore(tableName)
      const name = unique("handoff")
      const handingOff = yield* counted(
        Effect.scoped(Effect.flatMap(Lock.acquire(name, { lease: "10 seconds" }), Lock.handOff)).pipe(
          Effect.provideService(LockStore.LockStore, first)
        )
      )
      const handoff = handingOff.result
      // The acquire, and no release when its scope closed.
      expect(handingOff.requests).toEqual({ UpdateItem: 1 })
      expect(handoff).toMatchObject({ name, leaseMs: 10_000, leaseUntil: now + 10_000 })
      const text = Schema.encodeSync(LeaseHandoff.json)(handoff)

      yield* TestClock.adjust("3 seconds")
      const scope = yield* Scope.make()
      const resuming = yield* counted(
        Lock.resume(Schema.decodeUnknownSync(LeaseHandoff.json)(text)).pipe(
          Effect.provideService(Scope.Scope, scope),
          Effect.provideService(LockStore.LockStore, second)
        )
      )
      expect(resuming.requests).toEqual({ UpdateItem: 1 })
      const lease = resuming.result
      // The same fence and holder, under the new owner id the resuming write moved the lease to.
      expect([lease.fence, lease.holder]).toEqual([handoff.fence, handoff.holder])
      expect(lease.owner).not.toBe(handoff.owner)
      const stored = Option.getOrThrow(yield* second.inspect(name))
      expect(stored).toMatchObject({ owner: lease.owner, fence: handoff.fence, leaseUntil: now + 13_000 })
      // A third client finds it held; the handed-off owner id renews nothing any more.
      const third = yield* makeStore(tableName)
      const conflict = yield* third.tryAcquire(acquireRequest(name))
      expect(conflict._tag === "Conflict" && conflict.current?.owner).toBe(lease.owner)
      const late = yield* third.renew({ name, owner: handoff.owner, fence: handoff.fence, leaseMs: 10_000 })
      expect(late._tag).toBe("Lost")

      // Released when the resumed lease's scope closes.
      const closing = yield* counted(Scope.close(scope, Exit.void))
      expect(closing.requests).toEqual({ UpdateItem: 1 })
      expect(Option.getOrThrow(yield* third.inspect(name)).owner).toBeUndefined()
    }).pipe(Effect.scoped))
}
