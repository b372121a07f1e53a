/**
 * Lock data on a real server over HTTP: a renew that sets or removes the data is the heartbeat's one UpdateItem with
 * the data in it, and typed data (`TypedLock`) round-trips through the DynamoDB store. Each engine's test file runs it.
 */
import type { Vitest } from "@effect/vitest"
import { expect } from "@effect/vitest"
import { Lock, LockRecord, LockStore, TypedLock } from "@leasehold/lock"
import type * as DynamoServer from "@leasehold/testing/DynamoServer"
import { Effect, Option, Schema } from "effect"
import type { Engine } from "./behaviour.js"
import { TestClock } from "./effectLine.js"
import { acquireRequest, counted, getRaw, makeTableAndStore, unique } from "./support.js"

/** Sets the TestClock to the wall clock, so that times and TTLs are realistic and the server's Date agrees. */
const clockNow = Effect.gen(function*() {
  const now = Date.now()
  yield* TestClock.setTime(now)
  return now
})

const Job = TypedLock.make(Schema.Struct({ jobId: Schema.String, step: Schema.Number, startedAt: Schema.Date }))

export const dataBehaviour = (it: Vitest.MethodsNonLive<DynamoServer.DynamoServer>, engine: Engine) => {
  it.effect("a renew with setData is one UpdateItem that sets or removes the data and extends the lease", () =>
    Effect.gen(function*() {
      const now = yield* clockNow
      const { store, tableName } = yield* makeTableAndStore()
      const name = unique("set-data")
      const acquired = yield* store.tryAcquire(acquireRequest(name, { data: "step 1" }))
      if (acquired._tag !== "Acquired") throw new Error(`expected Acquired, got ${JSON.stringify(acquired)}`)
      const held = acquired.record
      yield* TestClock.adjust("2 seconds")
      const renew = { name, owner: held.owner!, fence: held.fence, leaseMs: 10_000 }

      const set = yield* counted(store.renew({ ...renew, setData: { data: "step 2" } }))
      expect(set.requests).toEqual({ UpdateItem: 1 })
      expect(set.result).toEqual({
        _tag: "Renewed",
        record: { ...held, leaseUntil: now + 12_000, version: held.version + 1, data: "step 2" }
      })
      const item = (yield* getRaw(tableName, { key: { S: name } })).Item
      expect([item?.data, item?.leaseUntil]).toEqual([{ S: "step 2" }, { N: String(now + 12_000) }])

      // A heartbeat leaves the data alone.
      const plain = yield* counted(store.renew(renew))
      expect(plain.requests).toEqual({ UpdateItem: 1 })
      expect(plain.result._tag === "Renewed" && plain.result.record.data).toBe("step 2")

      const removed = yield* counted(store.renew({ ...renew, setData: { data: undefined } }))
      expect(removed.requests).toEqual({ UpdateItem: 1 })
      expect(removed.result._tag === "Renewed" && removed.result.record.data).toBeUndefined()
      expect((yield* getRaw(tableName, { key: { S: name } })).Item?.data).toBeUndefined()

      // Not the holder: nothing written, the holder reported as for a renew.
      const wrong = yield* counted(store.renew({ ...renew, fence: held.fence + 1, setData: { data: "forged" } }))
      expect(wrong.result._tag).toBe("Lost")
      expect(wrong.requests).toEqual(engine.returnsOldItems ? { UpdateItem: 1 } : { UpdateItem: 1, GetItem: 1 })
      expect((yield* getRaw(tableName, { key: { S: name } })).Item?.data).toBeUndefined()

      // Too big: refused before any request.
      const tooBig = yield* counted(
        Effect.flip(store.renew({ ...renew, setData: { data: "x".repeat(LockRecord.maxDataBytes + 1) } }))
      )
      expect(tooBig.requests).toEqual({})
      expect([tooBig.result.operation, tooBig.result.retryable]).toEqual(["renew", false])
    }).pipe(Effect.scoped))

  it.effect("typed data round-trips; an update is exactly one UpdateItem, holder() one GetItem", () =>
    Effect.gen(function*() {
      const now = yield* clockNow
      const { store, tableName } = yield* makeTableAndStore()
      const name = unique("typed")
      const startedAt = new Date(now)
      const holder = Job.holder(name).pipe(Effect.provideService(LockStore.LockStore, store))

      const lease = yield* Job.acquire(name, { jobId: "j-1", step: 1, startedAt }, { lease: "30 seconds" }).pipe(
        Effect.provideService(LockStore.LockStore, store)
      )
      // Stored as the JSON of the encoded form: readable by anyone who reads the item.
      expect((yield* getRaw(tableName, { key: { S: name } })).Item?.data).toEqual({
        S: JSON.stringify({ jobId: "j-1", step: 1, startedAt: startedAt.toISOString() })
      })

      yield* TestClock.adjust("5 seconds")
      const update = yield* counted(lease.update({ jobId: "j-1", step: 2, startedAt }))
      expect(update.requests).toEqual({ UpdateItem: 1 })
      expect(lease.data).toEqual({ jobId: "j-1", step: 2, startedAt })

      const read = yield* counted(holder)
      expect(read.requests).toEqual({ GetItem: 1 })
      const seen = Option.getOrThrow(read.result)
      expect(seen).toMatchObject({ owner: lease.owner, fence: lease.fence, leaseUntil: now + 5_000 + 30_000 })
      expect(seen.data).toEqual(Option.some({ jobId: "j-1", step: 2, startedAt }))

      // What another program stored is a typed decode error, from the same one read.
      const other = unique("untyped")
      yield* Effect.scoped(Effect.gen(function*() {
        yield* Lock.acquire(other, { data: "{\"jobId\":42}" })
        const error = yield* Effect.flip(Job.holder(other))
        expect(error).toMatchObject({ _tag: "LockDataError", direction: "decode", name: other })
      })).pipe(Effect.provideService(LockStore.LockStore, store))
    }).pipe(Effect.scoped))
}
