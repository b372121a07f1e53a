/**
 * `Semaphore` end to end on a real DynamoDB server: processes (store instances, each with a client of its own) on one
 * table share a semaphore's permits up to its limit and agree on it, an acquisition costs the requests the module
 * promises, and bad input is refused before any request. `semaphoreLeases.ts` has the leases: heartbeat, loss and
 * takeover. Each engine's test file runs both.
 *
 * The lock's time is the TestClock, set to the wall clock so that leases are realistic; the store's request timeouts
 * run on the real clock, so a request in flight never waits for the test to move time.
 */
import type { Vitest } from "@effect/vitest"
import { expect } from "@effect/vitest"
import * as Lock from "@leasehold/lock/Lock"
import { LockConfigError, LockNotAcquired, SemaphoreLimitMismatch } from "@leasehold/lock/LockError"
import * as LockStore from "@leasehold/lock/LockStore"
import * as Semaphore from "@leasehold/lock/Semaphore"
import * as SemaphoreRecord from "@leasehold/lock/SemaphoreRecord"
import type * as DynamoServer from "@leasehold/testing/DynamoServer"
import { Effect, Exit, Option, Scope } from "effect"
import type { Engine } from "./behaviour.js"
import { TestClock } from "./effectLine.js"
import { counted, makeStore, makeTable, unique } from "./support.js"

/**
 * Sets the TestClock to the wall clock and returns it, rounded down as serverOutage.test.ts rounds it: the TestClock
 * derives nanoseconds from float milliseconds, exact at today's epoch only for some instants, and the lock reads its
 * deadlines in nanoseconds.
 */
export const clockNow = Effect.gen(function*() {
  const now = Date.now()
  const t0 = now - (now % 4)
  yield* TestClock.setTime(t0)
  return t0
})

/** Short leases, renewed well before their end; the same values in ms below, for the arithmetic of the checks. */
export const lease = {
  lease: "10 seconds",
  heartbeat: "2 seconds",
  safetyMargin: "1 second",
  maxClockSkew: "2 seconds"
} satisfies Lock.LockOptions
export const leaseMs = 10_000
export const maxClockSkewMs = 2_000

export const as = (store: LockStore.LockStore) => Effect.provideService(LockStore.LockStore, store)

/** What a conflict costs besides its write: an engine that does not return the old item is read once. */
export const conflictReads = (engine: Engine) => engine.returnsOldItems ? {} : { GetItem: 1 }

/** What `Semaphore.inspect` shows through `store`: the limit, the permits in use, and the holders in fence order. */
export const inspectHolders = (store: LockStore.LockStore, name: string) =>
  Effect.map(
    Semaphore.inspect(name).pipe(as(store)),
    Option.map((record) => ({
      limit: record.limit,
      used: record.used,
      holders: record.holders.map(({ fence, holder, owner, permits }) => ({ owner, holder, permits, fence }))
    }))
  )

export type It = Vitest.MethodsNonLive<DynamoServer.DynamoServer>

export const semaphoreModuleBehaviour = (it: It, engine: Engine) => {
  sharing(it, engine)
  cost(it)
  badInput(it)
}

/** Processes that share one semaphore. */
const sharing = (it: It, engine: Engine) => {
  it.effect("two processes take permits up to the limit; a third gets one after a release; fences increase", () =>
    Effect.gen(function*() {
      const t0 = yield* clockNow
      const { tableName } = yield* makeTable()
      const [a, b, c] = yield* Effect.all([makeStore(tableName), makeStore(tableName), makeStore(tableName)])
      const name = unique("pool")
      const options = { ...lease, limit: 3 }

      const scopeA = yield* Scope.make()
      const first = yield* Semaphore.acquire(name, { ...options, permits: 2, holder: "a", data: "shard-1" }).pipe(
        Effect.provideService(Scope.Scope, scopeA),
        as(a)
      )
      const second = yield* Semaphore.acquire(name, { ...options, holder: "b" }).pipe(as(b))
      expect([first.name, first.permits, first.limit, second.permits, second.limit]).toEqual([name, 2, 3, 1, 3])
      expect(yield* first.status).toEqual({ _tag: "Held" })
      expect(first.data).toBe("shard-1")
      expect(first.record).toMatchObject({ name, owner: first.owner, holder: "a", fence: first.fence, data: "shard-1" })
      expect(first.record.leaseUntil).toBe(t0 + leaseMs)
      expect(second.fence).toBeGreaterThan(first.fence)
      const holders = [
        { owner: first.owner, holder: "a", permits: 2, fence: first.fence },
        { owner: second.owner, holder: "b", permits: 1, fence: second.fence }
      ]
      expect(yield* inspectHolders(c, name)).toEqual(Option.some({ limit: 3, used: 3, holders }))

      // Full: another process asking for a permit without waiting is refused by a write that changed nothing.
      const full = yield* counted(Effect.flip(Effect.scoped(Semaphore.acquire(name, options))).pipe(as(c)))
      expect(full.result).toBeInstanceOf(LockNotAcquired)
      expect(full.result).toMatchObject({ name, permits: { wanted: 1, limit: 3, used: 3, holders: 2 } })
      expect(full.result.message).toContain(`semaphore "${name}" has no 1 free of its 3 permits`)
      expect(full.requests).toEqual({ UpdateItem: 1, ...conflictReads(engine) })
      expect(yield* inspectHolders(c, name)).toEqual(Option.some({ limit: 3, used: 3, holders }))

      // The first process gives its permits back in a single write; now the other gets one, with the highest fence yet.
      const release = yield* counted(Scope.close(scopeA, Exit.void))
      expect(release.requests).toEqual({ UpdateItem: 1 })
      expect(yield* first.isHeld).toBe(false)
      const third = yield* Semaphore.acquire(name, { ...options, holder: "c" }).pipe(as(c))
      expect(third.fence).toBeGreaterThan(second.fence)
      expect(yield* inspectHolders(a, name)).toEqual(Option.some({
        limit: 3,
        used: 2,
        holders: [holders[1], { owner: third.owner, holder: "c", permits: 1, fence: third.fence }]
      }))
    }).pipe(Effect.scoped))

  it.effect("a process that asks with another limit fails with SemaphoreLimitMismatch and writes nothing", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { tableName } = yield* makeTable()
      const [a, b] = yield* Effect.all([makeStore(tableName), makeStore(tableName)])
      const name = unique("limits")
      const scopeA = yield* Scope.make()
      yield* Semaphore.acquire(name, { ...lease, limit: 3 }).pipe(Effect.provideService(Scope.Scope, scopeA), as(a))
      const before = yield* Semaphore.inspect(name).pipe(as(b))

      let ran = 0
      const section = Effect.sync(() => ran++)
      const mismatch = yield* counted(
        Effect.flip(Semaphore.withPermits(name, section, { ...lease, limit: 4 })).pipe(as(b))
      )
      expect(mismatch.result).toBeInstanceOf(SemaphoreLimitMismatch)
      expect(mismatch.result).toMatchObject({ name, limit: 4, storedLimit: 3 })
      expect(mismatch.requests).toEqual({ UpdateItem: 1, ...conflictReads(engine) })
      expect(ran).toBe(0)
      expect(yield* Semaphore.inspect(name).pipe(as(b))).toEqual(before)

      // Nobody holds it any more, but the record keeps its limit: a smaller one is refused too, the stored one not.
      yield* Scope.close(scopeA, Exit.void)
      const smaller = yield* Effect.flip(Semaphore.withPermits(name, section, { ...lease, limit: 2 })).pipe(as(b))
      expect(smaller).toMatchObject({ _tag: "SemaphoreLimitMismatch", limit: 2, storedLimit: 3 })
      expect(ran).toBe(0)
      yield* Semaphore.withPermits(name, section, { ...lease, limit: 3 }).pipe(as(b))
      expect(ran).toBe(1)
    }).pipe(Effect.scoped))
}

/** What an acquisition costs in requests. */
const cost = (it: It) => {
  it.effect("an uncontended withPermits cycle on an existing record is 2 UpdateItem and no read, in both forms", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { tableName } = yield* makeTable()
      const store = yield* makeStore(tableName)
      const name = unique("cycle")
      const options = { ...lease, limit: 2 }
      const created = yield* counted(Semaphore.withPermits(name, Effect.succeed("created"), options).pipe(as(store)))
      expect(created.result).toBe("created")
      // Creating the record is a write of its own, after the one that found no record.
      expect(created.requests.UpdateItem).toBe(3)

      const dataFirst = yield* counted(
        Semaphore.withPermits(name, Effect.succeed("data-first"), options).pipe(as(store))
      )
      expect(dataFirst).toEqual({ result: "data-first", requests: { UpdateItem: 2 } })
      const piped = yield* counted(
        Effect.succeed("piped").pipe(Semaphore.withPermits(name, { ...options, permits: 2 }), as(store))
      )
      expect(piped).toEqual({ result: "piped", requests: { UpdateItem: 2 } })
      expect(yield* inspectHolders(store, name)).toEqual(Option.some({ limit: 2, used: 0, holders: [] }))
    }).pipe(Effect.scoped))
}

/** Bad input, refused before any request. */
const badInput = (it: It) => {
  it.effect("a semaphore name over the table's key budget is a LockConfigError, unsent; one byte less is taken", () =>
    Effect.gen(function*() {
      yield* clockNow
      const plain = yield* makeTable()
      const sorted = yield* makeTable({ sortKey: "name" })
      // A semaphore's key is its lock key with a marker in front: its names have a byte less than a lock's.
      const layouts = [
        [yield* makeStore(plain.tableName), 2047],
        [yield* makeStore(plain.tableName, { prefix: "p".repeat(2000) }), 46],
        [yield* makeStore(sorted.tableName, { sortKey: "name" }), 1023]
      ] as const
      for (const [store, budget] of layouts) {
        const tooLong = "n".repeat(budget + 1)
        const refused = yield* counted(
          Effect.all([
            Effect.flip(Effect.scoped(Semaphore.acquire(tooLong, { limit: 1 }))),
            Effect.flip(Semaphore.withPermits(tooLong, Effect.void, { limit: 1 })),
            Effect.flip(Semaphore.inspect(tooLong))
          ]).pipe(as(store))
        )
        expect(refused.requests).toEqual({})
        for (const error of refused.result) {
          expect(error).toBeInstanceOf(LockConfigError)
          expect(error).toMatchObject({ option: "name" })
          expect(error.message).toContain(`semaphore names of up to ${budget} bytes`)
        }
        const fits = "n".repeat(budget)
        const inside = yield* Semaphore.withPermits(fits, inspectHolders(store, fits), { limit: 1 }).pipe(as(store))
        expect(Option.map(inside, (record) => record.used)).toEqual(Option.some(1))
        // A lock may have the name: the marker makes the difference.
        expect(yield* Lock.withLock(tooLong, Effect.succeed("locked")).pipe(as(store))).toBe("locked")
      }
    }).pipe(Effect.scoped))

  it.effect("limit or permits out of bounds: a LockConfigError naming the option, unsent; the bounds are taken", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { tableName } = yield* makeTable()
      const store = yield* makeStore(tableName)
      const name = unique("bounds")
      const { maxLimit } = SemaphoreRecord
      const cases = [
        ["limit", { limit: 0 }, "semaphore limit 0 is not a whole number from 1 to"],
        [
          "limit",
          { limit: maxLimit + 1 },
          `semaphore limit ${maxLimit + 1} is not a whole number from 1 to ${maxLimit}`
        ],
        ["limit", { limit: 2.5 }, "semaphore limit 2.5"],
        ["permits", { limit: 3, permits: 4 }, "permits 4 is not a whole number from 1 to the limit (3)"],
        ["permits", { limit: 3, permits: 0 }, "permits 0 is not a whole number"]
      ] as const
      for (const [option, bounds, message] of cases) {
        const refused = yield* counted(
          Effect.all([
            Effect.flip(Effect.scoped(Semaphore.acquire(name, { ...lease, ...bounds }))),
            Effect.flip(Semaphore.withPermits(name, Effect.void, { ...lease, ...bounds }))
          ]).pipe(as(store))
        )
        expect(refused.requests, option).toEqual({})
        for (const error of refused.result) {
          expect(error).toBeInstanceOf(LockConfigError)
          expect(error).toMatchObject({ option })
          expect(error.message).toContain(message)
        }
      }
      expect(yield* Semaphore.inspect(name).pipe(as(store))).toEqual(Option.none())
      yield* Semaphore.withPermits(name, Effect.void, { ...lease, limit: maxLimit, permits: maxLimit }).pipe(as(store))
      expect(yield* inspectHolders(store, name)).toEqual(Option.some({ limit: maxLimit, used: 0, holders: [] }))
    }).pipe(Effect.scoped))

  it.effect("app-wide defaults a semaphore can not have are a LockConfigError, unsent: data, a lease past the TTL", () =>
    Effect.gen(function*() {
      yield* clockNow
      const { tableName } = yield* makeTable()
      const store = yield* makeStore(tableName, { ttlRetention: "1 minute" })
      const name = unique("defaults")
      const refusedWith = (defaults: Lock.LockOptions) =>
        Effect.gen(function*() {
          const refused = yield* counted(
            Effect.all([
              Effect.flip(Effect.scoped(Semaphore.acquire(name, { limit: 2 }))),
              Effect.flip(Semaphore.withPermits(name, Effect.void, { limit: 2 }))
            ]).pipe(as(store), Effect.provide(Lock.layerDefaults(defaults)))
          )
          expect(refused.requests).toEqual({})
          return refused.result
        })
      for (const error of yield* refusedWith({ data: "d".repeat(SemaphoreRecord.maxDataBytes + 1) })) {
        expect(`${error._tag}: ${error.message}`).toMatch(/^LockConfigError: /)
        expect(error).toMatchObject({ option: "data" })
        expect(error.message).toContain(`over a semaphore holder's limit of ${SemaphoreRecord.maxDataBytes}`)
      }
      // With the default skew bound of 10 s, a lease of 50 s reaches the table's TTL retention of a minute.
      for (const error of yield* refusedWith({ lease: "50 seconds" })) {
        expect(`${error._tag}: ${error.message}`).toMatch(/^LockConfigError: /)
        expect(error).toMatchObject({ option: "lease" })
        expect(error.message).toContain("ttlRetention (60000 ms)")
      }
      // The same lease with a smaller skew bound fits, and the defaults are what the holder gets.
      const data = "d".repeat(SemaphoreRecord.maxDataBytes)
      const held = yield* Semaphore.withPermits(name, store.inspectSemaphore(name), { limit: 2 }).pipe(
        as(store),
        Effect.provide(Lock.layerDefaults({ lease: "50 seconds", maxClockSkew: "9 seconds", data, holder: "app" }))
      )
      const [holder] = Option.getOrThrow(held).holders
      expect(holder).toMatchObject({ holder: "app", data, leaseMs: 50_000 })
    }).pipe(Effect.scoped))
}
