/**
 * Semaphores in the DynamoDB store on a real server over HTTP: the item and its key in each layout, one request per
 * operation, semaphores apart from locks (and the one key they can share in sort-key mode), malformed items, and the
 * clock-skew guard on removing expired holders. Each engine's test file runs it.
 */
import type { Vitest } from "@effect/vitest"
import { expect } from "@effect/vitest"
import * as LeaseSession from "@leasehold/core/session/LeaseSession"
import type { LockStore } from "@leasehold/lock"
import type { LockStoreError } from "@leasehold/lock/LockError"
import type * as SemaphoreStore from "@leasehold/lock/SemaphoreStore"
import type * as DynamoServer from "@leasehold/testing/DynamoServer"
import * as Simulation from "@leasehold/testing/Simulation"
import { Effect, Option } from "effect"
import type { Engine } from "./behaviour.js"
import { TestClock } from "./effectLine.js"
import { acquireRequest, counted, getRaw, makeStore, makeTable, makeTableAndStore, putRaw, unique } from "./support.js"

/** Sets the TestClock to the wall clock, so that times and TTLs are realistic and the server's Date agrees. */
const clockNow = Effect.gen(function*() {
  const now = Date.now()
  yield* TestClock.setTime(now)
  return now
})

const permitsRequest = (
  name: string,
  overrides: Partial<SemaphoreStore.AcquirePermitsRequest> = {}
): SemaphoreStore.AcquirePermitsRequest => ({
  name,
  owner: unique("owner"),
  holder: "worker-a",
  limit: 2,
  permits: 1,
  leaseMs: 10_000,
  data: undefined,
  takeover: { _tag: "Absolute", maxClockSkewMs: 10_000 },
  expired: [],
  create: true,
  ...overrides
})

const acquired = (result: SemaphoreStore.AcquirePermitsResult) => {
  if (result._tag !== "Acquired") throw new Error(`expected Acquired, got ${JSON.stringify(result)}`)
  return result
}

const refused = (error: LockStoreError, operation: string, ...parts: ReadonlyArray<string>) => {
  expect([error._tag, error.operation, error.retryable]).toEqual(["LockStoreError", operation, false])
  for (const part of parts) expect(error.message).toContain(part)
}

const lockNames = (store: LockStore.LockStore) =>
  Effect.map(store.list({ limit: Infinity }), (page) => page.records.map((record) => record.name).sort())

type It = Vitest.MethodsNonLive<DynamoServer.DynamoServer>

export const semaphoreBehaviour = (it: It, engine: Engine) => {
  items(it)
  apart(it)
  guard(it, engine)
}

/** The item, its key in each layout, and what is wrong with a malformed one. */
const items = (it: It) => {
  it.effect("a semaphore is one item, keyed as its lock key with \"#\" in front; each write is one UpdateItem", () =>
    Effect.gen(function*() {
      const now = yield* clockNow
      const { tableName } = yield* makeTable()
      const sorted = yield* makeTable({ sortKey: "name" })
      const layouts = [
        [yield* makeStore(tableName), { key: { S: "#a\\#b" } }],
        [yield* makeStore(tableName, { prefix: "app/" }), { key: { S: "#app/#a#b" } }],
        [yield* makeStore(sorted.tableName, { sortKey: "name" }), { key: { S: "leasehold" }, name: { S: "#a#b" } }]
      ] as const
      for (const [store, key] of layouts) {
        const table = "name" in key ? sorted.tableName : tableName
        const owner = unique("owner")
        const create = yield* counted(store.tryAcquirePermits(permitsRequest("a#b", { owner, data: "d" })))
        expect(create.requests).toEqual({ UpdateItem: 1 })
        const { record } = acquired(create.result)
        const item = (yield* getRaw(table, key)).Item
        expect(item).toEqual({
          ...key,
          limit: { N: "2" },
          used: { N: "1" },
          fence: { N: String(now + 1) },
          fences: { M: { [owner]: { N: String(now + 1) } } },
          holders: {
            M: {
              [owner]: {
                M: {
                  holder: { S: "worker-a" },
                  permits: { N: "1" },
                  leaseUntil: { N: String(now + 10_000) },
                  leaseMs: { N: "10000" },
                  version: { N: "1" },
                  acquiredAt: { N: String(now) },
                  data: { S: "d" }
                }
              }
            }
          },
          ttl: { N: String(Math.ceil((now + 10_000 + 7 * 24 * 60 * 60 * 1000) / 1000)) }
        })
        const renew = yield* counted(store.renewPermits({ name: "a#b", owner, fence: record.fence, leaseMs: 10_000 }))
        expect([renew.result._tag, renew.requests]).toEqual(["Renewed", { UpdateItem: 1 }])
        const release = yield* counted(store.releasePermits({ name: "a#b", owner, fence: record.fence, permits: 1 }))
        expect([release.result._tag, release.requests]).toEqual(["Released", { UpdateItem: 1 }])
        const inspect = yield* counted(store.inspectSemaphore("a#b"))
        expect(inspect.result).toEqual(Option.some({ name: "a#b", limit: 2, fence: now + 1, used: 0, holders: [] }))
        expect(inspect.requests).toEqual({ GetItem: 1 })
        // No lock of the name appeared, and listing lists none.
        expect(yield* store.inspect("a#b")).toEqual(Option.none())
        expect(yield* lockNames(store)).toEqual([])
      }
    }).pipe(Effect.scoped))

  it.effect("permits under a lease session pin the item's TTL until the last of them is released", () =>
    Effect.gen(function*() {
      const now = yield* clockNow
      const { store, tableName } = yield* makeTableAndStore({ ttlRetention: "1 hour" })
      const key = { key: { S: "#pinned" } }
      const ttlOf = (epochMs: number) => String(Math.ceil((epochMs + 3_600_000) / 1000))
      const pinned = ttlOf(LeaseSession.heldUntil)
      const item = Effect.map(getRaw(tableName, key), (output) => output.Item!)
      const under = acquired(yield* store.tryAcquirePermits(permitsRequest("pinned", { session: "s1", limit: 3 })))
      expect([(yield* item).ttl, (yield* item).sessionPin]).toEqual([{ N: pinned }, { N: pinned }])

      // A holder on its own lease renews and leaves: the TTL stays pinned, whatever its lease says.
      const own = acquired(yield* store.tryAcquirePermits(permitsRequest("pinned", { create: false, limit: 3 })))
      const ownRecord = own.record
      yield* store.renewPermits({ name: "pinned", owner: ownRecord.owner!, fence: ownRecord.fence, leaseMs: 10_000 })
      expect((yield* item).ttl).toEqual({ N: pinned })
      const second = acquired(
        yield* store.tryAcquirePermits(permitsRequest("pinned", { create: false, limit: 3, session: "s2" }))
      )
      yield* store.releasePermits({ name: "pinned", owner: ownRecord.owner!, fence: ownRecord.fence, permits: 1 })
      expect((yield* item).ttl).toEqual({ N: pinned })

      // The first of two holders under sessions leaves: still pinned. The last leaves: the pin goes, in one more write.
      yield* store.releasePermits({ name: "pinned", owner: under.record.owner!, fence: under.record.fence, permits: 1 })
      expect((yield* item).sessionPin).toEqual({ N: pinned })
      const last = yield* counted(store.releasePermits({
        name: "pinned",
        owner: second.record.owner!,
        fence: second.record.fence,
        permits: 1
      }))
      expect([last.result._tag, last.requests]).toEqual(["Released", { UpdateItem: 2 }])
      const after = yield* item
      expect([after.sessionPin, after.ttl]).toEqual([undefined, { N: ttlOf(now) }])
    }).pipe(Effect.scoped))

  it.effect("a lease (with its skew bound) as long as the TTL retention is refused before any write", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { store } = yield* makeTableAndStore({ ttlRetention: "1 minute" })
      const tooLong = permitsRequest("short-lived", {
        leaseMs: 50_000,
        takeover: { _tag: "Absolute", maxClockSkewMs: 10_000 }
      })
      const refusal = yield* counted(Effect.flip(store.tryAcquirePermits(tooLong)))
      refused(refusal.result, "tryAcquirePermits", "ttlRetention (60000 ms)", "50000 ms (plus 10000 ms of clock skew)")
      expect(refusal.requests).toEqual({})
      // Observed takeover trusts no clock: the lease alone must fit.
      const observed = permitsRequest("short-lived", { leaseMs: 50_000, takeover: { _tag: "Observed" } })
      expect((yield* store.tryAcquirePermits(observed))._tag).toBe("Acquired")
    }).pipe(Effect.scoped))

  it.effect("a malformed semaphore item is a LockStoreError naming the key and the attribute", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { store, tableName } = yield* makeTableAndStore()
      const holder = {
        M: {
          holder: { S: "h" },
          permits: { N: "2" },
          leaseUntil: { N: "1" },
          leaseMs: { N: "1" },
          version: { N: "1" },
          acquiredAt: { N: "1" }
        }
      }
      const base = { limit: { N: "3" }, used: { N: "2" }, fence: { N: "7" }, ttl: { N: "1" } }
      const planted = [
        ["count", { ...base, used: { N: "1" } }, `attribute "used" is 1, but the holders hold 2 permits`],
        ["fence", { ...base, fence: { S: "seven" } }, `attribute "fence" should be a number (N)`],
        ["entry", { ...base, holders: { M: { o: { S: "x" } } } }, `attribute "holders.o" should be a map (M)`]
      ] as const
      for (const [label, attributes, problem] of planted) {
        const name = unique(label)
        const fences = { M: { o: { N: "7" } } }
        yield* putRaw(tableName, { key: { S: `#${name}` }, holders: { M: { o: holder } }, fences, ...attributes })
        const error = yield* Effect.flip(store.inspectSemaphore(name))
        refused(error, "inspectSemaphore", `malformed semaphore item {"key":"#${name}"}`, problem)
      }
      // The acquire's fence arithmetic fails on the server: the message still names the item.
      const name = unique("arithmetic")
      yield* putRaw(tableName, {
        key: { S: `#${name}` },
        ...base,
        used: { N: "0" },
        fence: { S: "seven" },
        holders: { M: {} },
        fences: { M: {} }
      })
      const error = yield* Effect.flip(store.tryAcquirePermits(permitsRequest(name, { limit: 3, create: false })))
      refused(error, "tryAcquirePermits", `malformed semaphore item {"key":"#${name}"}`)
    }).pipe(Effect.scoped))
}

/** Semaphores apart from locks. */
const apart = (it: It) => {
  it.effect("partition-key mode: a lock named like a semaphore's key is a different item", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { tableName } = yield* makeTable()
      for (const prefix of ["", "app"]) {
        const store = yield* makeStore(tableName, { prefix })
        const semaphore = acquired(yield* store.tryAcquirePermits(permitsRequest("x")))
        // "#x" as a lock name is escaped ("\#x"), or follows the prefix ("app#x"): never the semaphore's "#x".
        const lock = yield* store.tryAcquire(acquireRequest("#x"))
        expect(lock._tag).toBe("Acquired")
        expect(Option.map(yield* store.inspectSemaphore("x"), (record) => record.holders)).toEqual(
          Option.some(semaphore.semaphore.holders)
        )
        expect(yield* lockNames(store)).toEqual(["#x"])
      }
    }).pipe(Effect.scoped))

  it.effect("sort-key mode: the lock \"#x\" has the semaphore \"x\"'s key; each refuses the other's item", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { store, tableName } = yield* makeTableAndStore({ sortKey: "name" })
      const key = (name: string) => ({ key: { S: "leasehold" }, name: { S: name } })
      acquired(yield* store.tryAcquirePermits(permitsRequest("x")))
      const before = (yield* getRaw(tableName, key("#x"))).Item
      const semaphoreItem = `belongs to a semaphore: in sort-key mode the semaphore "x" has the key of the lock "#x"`
      refused(yield* Effect.flip(store.tryAcquire(acquireRequest("#x"))), "tryAcquire", semaphoreItem)
      refused(yield* Effect.flip(store.inspect("#x")), "inspect", semaphoreItem)
      const reserve = { name: "#x", owner: unique("owner"), reserveMs: 1_000, graceMs: 0, waitingSince: 0 }
      refused(yield* Effect.flip(store.reserve(reserve)), "reserve", semaphoreItem)
      expect((yield* getRaw(tableName, key("#x"))).Item).toEqual(before)

      // The other way round: the lock came first.
      expect((yield* store.tryAcquire(acquireRequest("#y")))._tag).toBe("Acquired")
      const lockBefore = (yield* getRaw(tableName, key("#y"))).Item
      const lockItem = `the item is the lock "#y", whose key in sort-key mode is this semaphore's`
      for (const create of [true, false]) {
        const error = yield* Effect.flip(store.tryAcquirePermits(permitsRequest("y", { create })))
        refused(error, "tryAcquirePermits", "malformed semaphore item", lockItem)
      }
      refused(yield* Effect.flip(store.inspectSemaphore("y")), "inspectSemaphore", lockItem)
      expect((yield* getRaw(tableName, key("#y"))).Item).toEqual(lockBefore)

      // Listing the family lists its locks and skips its semaphores.
      acquired(yield* store.tryAcquirePermits(permitsRequest("z")))
      yield* store.tryAcquire(acquireRequest("z"))
      expect(yield* lockNames(store)).toEqual(["#y", "z"])
    }).pipe(Effect.scoped))
}

/** The clock-skew guard on removing expired holders. */
const guard = (it: It, engine: Engine) => {
  it.effect("clock-skew guard: refuses to remove expired holders while the local clock is far from the server's", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { store: a, tableName } = yield* makeTableAndStore({ clockSkewGuard: true })
      const name = unique("skew")
      const held = acquired(yield* a.tryAcquirePermits(permitsRequest(name, { limit: 1, leaseMs: 1_000 })))
      // A process whose clock runs an hour ahead of the test's (which is the server's): every lease looks long
      // expired to it.
      const anHourAhead = Simulation.withClockOffset(60 * 60 * 1000)
      const expired = [{ owner: held.record.owner!, permits: 1, version: held.record.version }]
      const removing = permitsRequest(name, { limit: 1, create: false, expired })

      // A fresh process knows no skew yet: it asks without removing anyone first and measures with the answer.
      const b = yield* makeStore(tableName, { clockSkewGuard: true })
      const { requests: calls, result: error } = yield* counted(
        Effect.flip(anHourAhead(b.tryAcquirePermits(removing)))
      )
      refused(error, "tryAcquirePermits", `refusing to remove the expired holders of semaphore "${name}"`, "NTP")
      expect(error.message).toMatch(/the local clock is at least \d+ ms ahead of DynamoDB's/)
      expect(calls.UpdateItem).toBe(1)
      expect(calls.GetItem).toBe(engine.returnsOldItems ? undefined : 1)
      expect(Option.map(yield* a.inspectSemaphore(name), (r) => r.holders.length)).toEqual(Option.some(1))

      // Observed mode trusts no clock and is not refused.
      const observed = yield* anHourAhead(b.tryAcquirePermits({ ...removing, takeover: { _tag: "Observed" } }))
      expect(acquired(observed).record.fence).toBe(held.record.fence + 1)
    }).pipe(Effect.scoped))

  it.effect("clock-skew guard: a TestClock moved on is time passing for the whole test: expired holders go", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { store: a, tableName } = yield* makeTableAndStore({ clockSkewGuard: true })
      const name = unique("passing")
      const held = acquired(yield* a.tryAcquirePermits(permitsRequest(name, { limit: 1, leaseMs: 1_000 })))
      yield* TestClock.adjust("1 hour")
      const expired = [{ owner: held.record.owner!, permits: 1, version: held.record.version }]
      const b = yield* makeStore(tableName, { clockSkewGuard: true })
      const { requests: calls, result } = yield* counted(
        b.tryAcquirePermits(permitsRequest(name, { limit: 1, create: false, expired }))
      )
      expect(acquired(result).semaphore.holders.map((holder) => holder.owner)).not.toContain(held.record.owner)
      // Measured first, with a write that removes nobody.
      expect(calls.UpdateItem).toBe(2)
    }).pipe(Effect.scoped))

  it.effect("clock-skew guard: with agreeing clocks expired holders are removed; off, the guard is not consulted", () =>
    Effect.gen(function*() {
      const now = yield* clockNow
      yield* TestClock.setTime(now - 30_000)
      const { store: a, tableName } = yield* makeTableAndStore({ clockSkewGuard: true })
      const name = unique("agree")
      const first = acquired(yield* a.tryAcquirePermits(permitsRequest(name, { limit: 1, leaseMs: 1_000 })))
      yield* clockNow
      const expiredOf = (result: ReturnType<typeof acquired>) => [
        { owner: result.record.owner!, permits: 1, version: result.record.version }
      ]

      // Measure first (a write that removes nobody and conflicts), then remove.
      const b = yield* makeStore(tableName, { clockSkewGuard: true })
      const removing = (expired: ReturnType<typeof expiredOf>) =>
        permitsRequest(name, { limit: 1, leaseMs: 1_000, create: false, expired })
      const { requests: calls, result } = yield* counted(b.tryAcquirePermits(removing(expiredOf(first))))
      const second = acquired(result)
      expect(second.record.fence).toBe(first.record.fence + 1)
      expect(calls.UpdateItem).toBe(2)

      // b now knows its skew is small: the next removal is a single write.
      yield* TestClock.adjust("30 seconds")
      const again = yield* counted(b.tryAcquirePermits(removing(expiredOf(second))))
      const third = acquired(again.result)
      expect(again.requests).toEqual({ UpdateItem: 1 })

      // Guard off: a clock an hour ahead removes at once.
      yield* TestClock.adjust("1 hour")
      const unguarded = yield* makeStore(tableName, { clockSkewGuard: false })
      const forced = yield* counted(unguarded.tryAcquirePermits(removing(expiredOf(third))))
      expect(acquired(forced.result).record.fence).toBe(first.record.fence + 3)
      expect(forced.requests).toEqual({ UpdateItem: 1 })
    }).pipe(Effect.scoped))
}
