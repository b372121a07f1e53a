/**
 * The DynamoDB store's behaviour on a real server over HTTP: expressions, fences, conflicts, table helpers, the
 * clock-skew guard and interruption. Each engine's test file runs it with what that engine is known to support.
 */
import { DeleteItemCommand } from "@aws-sdk/client-dynamodb"
import type { Vitest } from "@effect/vitest"
import { expect } from "@effect/vitest"
import type { DynamoLockTable } from "@leasehold/dynamodb"
import { DynamoLockStore } from "@leasehold/dynamodb"
import type { LockRecord } from "@leasehold/lock/LockRecord"
import { DynamoServer } from "@leasehold/testing"
import { Cause, Effect, Exit, Fiber, Option, TestClock } from "effect"
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

const acquired = (result: { readonly _tag: string; readonly record?: LockRecord }): LockRecord => {
  expect(result._tag).toBe("Acquired")
  return result.record!
}

export const storeBehaviour = (it: Vitest.MethodsNonLive<DynamoServer.DynamoServer>, engine: Engine) => {
  it.scoped("acquire writes the item in one UpdateItem: holder, lease, fence from the clock, ttl in seconds", () =>
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
        acquiredAt: now,
        data: "payload"
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
        acquiredAt: { N: String(now) },
        data: { S: "payload" },
        ttl: { N: String(Math.ceil((now + 10_000 + week) / 1000)) }
      })
    }))

  it.scoped("an uncontended acquire + release cycle is exactly 2 UpdateItem and no reads (server-counted)", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { store } = yield* makeTableAndStore()
      const request = acquireRequest(unique("cycle"))
      const { requests: calls, result } = yield* counted(Effect.gen(function*() {
        const record = acquired(yield* store.tryAcquire(request))
        return yield* store.release({ name: request.name, owner: request.owner, fence: record.fence })
      }))
      expect(result).toEqual({ _tag: "Released" })
      expect(calls).toEqual({ UpdateItem: 2 })
    }))

  it.scoped("release keeps the row and its fence; later acquisitions increment the fence", () =>
    Effect.gen(function*() {
      const now = yield* clockNow
      const { store, tableName } = yield* makeTableAndStore()
      const name = unique("fence")
      const first = acquired(yield* store.tryAcquire(acquireRequest(name, { data: "x" })))
      yield* TestClock.adjust("2 seconds")
      expect(yield* store.release({ name, owner: first.owner!, fence: first.fence })).toEqual({ _tag: "Released" })

      const raw = yield* getRaw(tableName, { key: { S: name } })
      expect(raw.Item).toEqual({
        key: { S: name },
        leaseUntil: { N: "0" },
        leaseMs: { N: "10000" },
        fence: { N: String(first.fence) },
        ttl: { N: String(Math.ceil((now + 2_000 + week) / 1000)) }
      })
      expect(yield* store.inspect(name)).toEqual(Option.some({
        name,
        owner: undefined,
        holder: undefined,
        leaseUntil: 0,
        leaseMs: 10_000,
        fence: first.fence,
        acquiredAt: undefined,
        data: undefined
      }))

      const second = acquired(yield* store.tryAcquire(acquireRequest(name, { holder: "worker-b" })))
      expect(second.fence).toBe(first.fence + 1)
      expect(second.data).toBeUndefined()
      yield* store.release({ name, owner: second.owner!, fence: undefined })
      const third = acquired(yield* store.tryAcquire(acquireRequest(name)))
      expect(third.fence).toBe(first.fence + 2)
    }))

  it.scoped("a row deleted by TTL restarts its fence from the writer's clock", () =>
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
      const later = yield* TestClock.adjust("1 hour").pipe(Effect.zipRight(TestClock.currentTimeMillis))
      const second = acquired(yield* store.tryAcquire(acquireRequest(name)))
      expect(second.fence).toBe(later + 1)
      expect(second.fence).toBeGreaterThan(first.fence)
      // A renew of the deleted holder finds nothing.
      expect(yield* store.renew({ name: unique("gone"), owner: "nobody", fence: 1, leaseMs: 1000 })).toEqual({
        _tag: "Lost",
        current: undefined
      })
    }))

  it.scoped("renew extends the lease only for the same owner and fence", () =>
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
        record: { ...held, leaseUntil: now + 3_000 + 20_000, leaseMs: 20_000 }
      })
      const raw = yield* getRaw(tableName, { key: { S: name } })
      expect(raw.Item?.ttl).toEqual({ N: String(Math.ceil((now + 23_000 + week) / 1000)) })
      // Idempotent: the same renew again succeeds.
      expect((yield* store.renew({ name, owner: held.owner!, fence: held.fence, leaseMs: 20_000 }))._tag).toBe(
        "Renewed"
      )

      const current = { ...held, leaseUntil: now + 23_000, leaseMs: 20_000 }
      const wrongFence = yield* counted(store.renew({ name, owner: held.owner!, fence: held.fence - 1, leaseMs: 1 }))
      expect(wrongFence.result).toEqual({ _tag: "Lost", current })
      expect(wrongFence.requests).toEqual(engine.returnsOldItems ? { UpdateItem: 1 } : { UpdateItem: 1, GetItem: 1 })
      expect(yield* store.renew({ name, owner: "someone-else", fence: held.fence, leaseMs: 1 })).toEqual({
        _tag: "Lost",
        current
      })
    }))

  it.scoped(
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
      })
  )

  it.scoped("absolute takeover: after leaseUntil + maxClockSkew, not before; the old holder's renew is Lost", () =>
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
    }))

  it.scoped("observed takeover needs the exact stale observation; without one only a free lock is taken", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { store } = yield* makeTableAndStore()
      const name = unique("observed")
      const a = acquired(yield* store.tryAcquire(acquireRequest(name, { leaseMs: 5_000 })))
      // Long past any absolute bound: observed mode does not look at clocks.
      yield* TestClock.adjust("1 hour")
      const observed = (stale: { owner: string; fence: number; leaseUntil: number } | undefined) =>
        acquireRequest(name, { holder: "worker-b", takeover: { _tag: "Observed", stale } })
      expect(yield* store.tryAcquire(observed(undefined))).toEqual({ _tag: "Conflict", current: a })
      const stale = { owner: a.owner!, fence: a.fence, leaseUntil: a.leaseUntil }
      expect(yield* store.tryAcquire(observed({ ...stale, leaseUntil: a.leaseUntil - 1 }))).toEqual({
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
    }))

  it.scoped("release needs the owner, and the fence when given; NotHeld tells the holder", () =>
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
      expect(yield* store.release({ name, owner: held.owner!, fence: undefined })).toEqual({ _tag: "Released" })
      expect(yield* store.release({ name, owner: held.owner!, fence: held.fence })).toEqual({
        _tag: "NotHeld",
        current: undefined
      })
      expect(yield* store.release({ name: unique("never"), owner: "x", fence: undefined })).toEqual({
        _tag: "NotHeld",
        current: undefined
      })
    }))

  it.scoped("forceRelease clears any holder and returns it; a free lock gives none", () =>
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
    }))

  it.scoped("inspect is one consistent GetItem; an unknown name is none", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { store } = yield* makeTableAndStore()
      const name = unique("inspect")
      const held = acquired(yield* store.tryAcquire(acquireRequest(name)))
      const { requests: calls, result } = yield* counted(store.inspect(name))
      expect(result).toEqual(Option.some(held))
      expect(calls).toEqual({ GetItem: 1 })
      expect(yield* store.inspect(unique("never"))).toEqual(Option.none())
    }))

  it.scoped("list pages through names by prefix, in name order (partition-key mode: Scan)", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { store } = yield* makeTableAndStore({ prefix: "app1/" })
      for (const name of ["a/3", "b/1", "a/1", "a/5", "a/2", "a/4"]) {
        acquired(yield* store.tryAcquire(acquireRequest(name)))
      }
      const names = (page: { readonly records: ReadonlyArray<LockRecord> }) => page.records.map((r) => r.name)
      const { requests: calls, result: first } = yield* counted(store.list({ prefix: "a/", limit: 2 }))
      expect(names(first)).toEqual(["a/1", "a/2"])
      expect(first.cursor).toBe("a/2")
      expect(Object.keys(calls)).toEqual(["Scan"])
      const second = yield* store.list({ prefix: "a/", limit: 2, cursor: first.cursor })
      expect(names(second)).toEqual(["a/3", "a/4"])
      const third = yield* store.list({ prefix: "a/", limit: 2, cursor: second.cursor })
      expect(names(third)).toEqual(["a/5"])
      expect(third.cursor).toBeUndefined()
      const all = yield* store.list({})
      expect(names(all)).toEqual(["a/1", "a/2", "a/3", "a/4", "a/5", "b/1"])
      expect(all.cursor).toBeUndefined()
      expect(yield* store.list({ limit: 0 })).toEqual({ records: [], cursor: undefined })
    }))

  it.scoped("sort-key mode: a family is one partition, listed by Query in name order", () =>
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
    }))

  it.scoped("a name over DynamoDB's key size limit is a LockConfigError before any request", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { store, tableName } = yield* makeTableAndStore()
      const prefixed = yield* makeStore(tableName, { prefix: "app/" })
      const sorted = yield* makeTableAndStore({ sortKey: "name" })
      expect(store.maxNameBytes).toBe(2048)
      expect(prefixed.maxNameBytes).toBe(2044)
      expect(sorted.store.maxNameBytes).toBe(1024)

      const dies = <A, E>(self: Effect.Effect<A, E>) =>
        Effect.gen(function*() {
          const { requests: calls, result: exit } = yield* counted(Effect.exit(self))
          expect(calls).toEqual({})
          expect(Exit.isFailure(exit)).toBe(true)
          const defect = Exit.isFailure(exit) ? Cause.dieOption(exit.cause) : Option.none()
          expect(Option.map(defect, (d) => (d as { _tag: string })._tag)).toEqual(Option.some("LockConfigError"))
          return Option.getOrThrow(defect) as { option: string; message: string }
        })
      // 2049 bytes: two-byte characters make the byte count, not the length, the limit.
      const error = yield* dies(store.tryAcquire(acquireRequest("é".repeat(1024) + "x")))
      expect(error.option).toBe("name")
      expect(error.message).toContain("2049 UTF-8 bytes")
      yield* dies(prefixed.tryAcquire(acquireRequest("x".repeat(2045))))
      yield* dies(sorted.store.tryAcquire(acquireRequest("x".repeat(1025))))
      // At the limit it works.
      acquired(yield* store.tryAcquire(acquireRequest("é".repeat(1024))))
      acquired(yield* prefixed.tryAcquire(acquireRequest("x".repeat(2044))))
      acquired(yield* sorted.store.tryAcquire(acquireRequest("x".repeat(1024))))
      // Other operations answer for a name that can not exist without asking.
      const { requests: calls, result } = yield* counted(Effect.all([
        store.inspect("x".repeat(3000)),
        store.renew({ name: "x".repeat(3000), owner: "o", fence: 1, leaseMs: 1 }),
        store.release({ name: "x".repeat(3000), owner: "o", fence: 1 }),
        store.forceRelease("x".repeat(3000))
      ]))
      expect(calls).toEqual({})
      expect(result).toEqual([
        Option.none(),
        { _tag: "Lost", current: undefined },
        { _tag: "NotHeld", current: undefined },
        Option.none()
      ])
    }))

  it.scoped("a missing table is reported as such, with the fix", () =>
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
      expect(error.message).toContain("leasehold table create")
    }))

  it.scoped("a table with another key schema is reported as such", () =>
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
    }))

  it.scoped("a malformed item is a LockStoreError naming the key and the attribute", () =>
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
    }))

  it.scoped(`createTable is idempotent and reports TTL as "${engine.ttl}"; checkTable lists problems`, () =>
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
    }))

  it.scoped("createTable fails clearly when the name is taken by a table with another key schema", () =>
    Effect.gen(function*() {
      const server = yield* DynamoServer.DynamoServer
      const { tableName } = yield* makeTable({ partitionKey: "pk" })
      const error = yield* Effect.flip(DynamoLockStore.createTable({ tableName, clientConfig: server.clientConfig }))
      expect(error._tag).toBe("LockStoreError")
      expect(error.operation).toBe("createTable")
      expect(error.message).toContain(`table "${tableName}" has key schema {pk: S}, but the store expects {key: S}`)
    }))

  it.scoped("clock-skew guard: refuses an absolute takeover while the local clock is far from the server's", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { store: a, tableName } = yield* makeTableAndStore({ clockSkewGuard: true })
      const name = unique("skew")
      const held = acquired(yield* a.tryAcquire(acquireRequest(name, { leaseMs: 1_000 })))
      // The local (Test)clock jumps an hour ahead of DynamoDB's: every lease looks long expired.
      yield* TestClock.adjust("1 hour")
      const absolute = acquireRequest(name, { holder: "worker-b" })

      // A fresh process knows no skew yet: it asks for a free lock first and measures with the answer.
      const b = yield* makeStore(tableName, { clockSkewGuard: true })
      const { requests: calls, result: error } = yield* counted(Effect.flip(b.tryAcquire(absolute)))
      expect(error._tag).toBe("LockStoreError")
      expect(error.retryable).toBe(false)
      expect(error.message).toContain(`refusing to take over lock "${name}"`)
      expect(error.message).toMatch(/the local clock is at least \d+ ms ahead of DynamoDB's/)
      expect(error.message).toContain("maxClockSkew (10000 ms)")
      expect(error.message).toContain("NTP")
      expect(calls.UpdateItem).toBe(1)

      // A process that measured the skew on an earlier response refuses too.
      yield* a.inspect(name)
      const again = yield* Effect.flip(a.tryAcquire(absolute))
      expect(again.message).toContain("refusing to take over")
      expect(Option.map(yield* a.inspect(name), (r) => r.owner)).toEqual(Option.some(held.owner))

      // Observed mode trusts no clock and is not refused.
      const stale = { owner: held.owner!, fence: held.fence, leaseUntil: held.leaseUntil }
      const taken = acquired(
        yield* b.tryAcquire(acquireRequest(name, { holder: "worker-b", takeover: { _tag: "Observed", stale } }))
      )
      expect(taken.fence).toBe(held.fence + 1)

      // A free lock is still acquired in absolute mode.
      yield* b.release({ name, owner: taken.owner!, fence: taken.fence })
      acquired(yield* b.tryAcquire(absolute))
    }))

  it.scoped("clock-skew guard: with agreeing clocks an absolute takeover goes through; off, it is not consulted", () =>
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
    }))

  it.scoped("interrupting an acquire while its request is in flight aborts the request", () =>
    Effect.gen(function*() {
      yield* clockNow
      const server = yield* DynamoServer.DynamoServer
      const { store } = yield* makeTableAndStore()
      const name = unique("abort")
      yield* server.resetRequests
      yield* server.pause
      yield* Effect.addFinalizer(() => server.resume)
      const fiber = yield* Effect.fork(store.tryAcquire(acquireRequest(name)))
      // The request has reached the (paused) server.
      yield* server.awaitPending(1)
      yield* Fiber.interrupt(fiber)
      // The client gave up on it: the aborted request leaves the server's queue without being answered ...
      yield* awaitNothingPending
      yield* server.resume
      // ... so it was never applied.
      expect(yield* store.inspect(name)).toEqual(Option.none())
      expect((yield* requests).UpdateItem).toBe(1)
    }))

  it.scoped("a server that refuses connections is a retryable LockStoreError after the bounded retries", () =>
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
    }))
}
