// TypedLock: a lock's data as a value of an Effect Schema, stored as the JSON of its encoded form.
import { describe, expect, expectTypeOf, it } from "@effect/vitest"
import { Lock, LockStore, TypedLock } from "@leasehold/lock"
import { Deferred, Effect, Fiber, Option, Schema } from "effect"
import { forkChild, isSchemaError, positiveNumber, TestClock } from "./effectLine.js"
import { noCalls, probe, recordingTracer, sharedMemory } from "./support.js"

const Job = Schema.Struct({ jobId: Schema.String, step: Schema.Number })
const Jobs = TypedLock.make(Job)

/** A schema whose encoded form differs from its type: a Date is stored as an ISO string. */
const Deadlines = TypedLock.make(Schema.Struct({ until: Schema.Date, note: Schema.optional(Schema.String) }))

/** Only positive steps encode. */
const Steps = TypedLock.make(Schema.Struct({ step: positiveNumber }))

const stored = (store: LockStore.LockStore, name: string) =>
  Effect.map(store.inspect(name), (record) => Option.getOrThrow(record).data)

describe("TypedLock", () => {
  it.effect("round-trips typed data through acquire, update and holder; stores the JSON of the encoded form", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const until = new Date("2024-06-30T12:00:00.000Z")
      yield* Effect.scoped(Effect.gen(function*() {
        const lease = yield* Deadlines.acquire("deadline", { until })
        expect(lease.data).toEqual({ until })
        expect(yield* stored(backing, "deadline")).toBe("{\"until\":\"2024-06-30T12:00:00.000Z\"}")
        expect(lease.lease.data).toBe(yield* stored(backing, "deadline"))
        const later = { until: new Date("2024-07-01T00:00:00.000Z"), note: "moved" }
        yield* lease.update(later)
        expect(lease.data).toEqual(later)
        expect(JSON.parse((yield* stored(backing, "deadline"))!)).toEqual({
          until: "2024-07-01T00:00:00.000Z",
          note: "moved"
        })
        const holder = Option.getOrThrow(yield* Deadlines.holder("deadline"))
        expect(holder).toMatchObject({
          name: "deadline",
          holder: lease.holder,
          owner: lease.owner,
          fence: lease.fence,
          acquiredAt: 0,
          data: Option.some(later)
        })
        expect(holder.data.pipe(Option.map((data) => data.until instanceof Date))).toEqual(Option.some(true))
      })).pipe(Effect.provide(LockStore.layerProcess(backing)))
      // Released: nobody holds it.
      expect(yield* Deadlines.holder("deadline").pipe(Effect.provide(LockStore.layerProcess(backing)))).toEqual(
        Option.none()
      )
    }))

  it.effect("holder() is one store read; None for a free or unknown lock, no data for a holder that stored none", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      yield* Effect.scoped(Effect.gen(function*() {
        yield* Jobs.acquire("jobs/a", { jobId: "a-1", step: 1 })
        yield* Lock.acquire("jobs/plain")
        const before = { ...process.calls }
        const holder = yield* Jobs.holder("jobs/a")
        expect(process.calls).toEqual({ ...before, inspect: before.inspect + 1 })
        expect(Option.map(holder, (h) => h.data)).toEqual(Option.some(Option.some({ jobId: "a-1", step: 1 })))
        const plain = Option.getOrThrow(yield* Jobs.holder("jobs/plain"))
        expect(plain.data).toEqual(Option.none())
        expect(yield* Jobs.holder("jobs/never")).toEqual(Option.none())
      })).pipe(Effect.provide(process.layer))
      expect(yield* Jobs.holder("jobs/a").pipe(Effect.provide(process.layer))).toEqual(Option.none())
      // A name the store can not key is refused before any call.
      const calls = { ...process.calls }
      const bad = yield* Effect.flip(Jobs.holder("").pipe(Effect.provide(process.layer)))
      expect(bad).toMatchObject({ _tag: "LockConfigError", option: "name" })
      expect(process.calls).toEqual(calls)
    }))

  it.effect("an update is visible to holder() in another process, in one write that extends the lease", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const holderProcess = yield* probe(shared)
      const other = LockStore.layerProcess(shared)
      const lease = yield* Jobs.acquire("jobs/b", { jobId: "b-1", step: 1 }, { lease: "3 seconds" }).pipe(
        Effect.provide(holderProcess.layer)
      )
      yield* TestClock.adjust("500 millis")
      const before = { ...holderProcess.calls }
      yield* lease.update({ jobId: "b-1", step: 2 })
      expect(holderProcess.calls).toEqual({ ...before, renew: before.renew + 1 })
      const seen = Option.getOrThrow(yield* Jobs.holder("jobs/b").pipe(Effect.provide(other)))
      expect(seen.data).toEqual(Option.some({ jobId: "b-1", step: 2 }))
      expect(seen.owner).toBe(lease.owner)
      expect(seen.leaseUntil).toBe(500 + 3_000)
    }).pipe(Effect.scoped))

  it.effect("data someone stored in another shape is a typed LockDataError (decode) a person can act on", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      yield* Effect.scoped(Effect.gen(function*() {
        yield* Lock.acquire("jobs/foreign", { data: "{\"jobId\":7}" })
        yield* Lock.acquire("jobs/not-json", { data: "step two" })
        for (const name of ["jobs/foreign", "jobs/not-json"]) {
          const error = yield* Effect.flip(Jobs.holder(name))
          expect(error._tag).toBe("LockDataError")
          if (error._tag !== "LockDataError") return
          expect([error.name, error.direction]).toEqual([name, "decode"])
          expect(isSchemaError(error.cause)).toBe(true)
          expect(error.message).toContain(`lock "${name}" holds data that does not fit this lock's schema`)
          expect(error.message).toContain(error.cause.message)
        }
        // Re-entering a lease with foreign data decodes it, and fails alike.
        const reentered = yield* Effect.flip(Jobs.acquire("jobs/foreign", { jobId: "mine", step: 1 }))
        expect(reentered).toMatchObject({ _tag: "LockDataError", direction: "decode", name: "jobs/foreign" })
      })).pipe(Effect.provide(process.layer))
    }))

  it.effect("a value that does not encode is a LockDataError (encode) before any store call", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      const run = <A, E>(self: Effect.Effect<A, E, LockStore.LockStore>) => Effect.provide(self, process.layer)
      const acquired = yield* Effect.flip(run(Effect.scoped(Steps.acquire("steps", { step: -1 }))))
      const withLock = yield* Effect.flip(run(Steps.withLock("steps", { step: 0 }, Effect.void)))
      const piped = yield* Effect.flip(run(Effect.void.pipe(Steps.withLock("steps", { step: -2 }))))
      for (const error of [acquired, withLock, piped]) {
        expect(error).toMatchObject({ _tag: "LockDataError", direction: "encode", name: "steps" })
        expect(error.message).toContain("does not fit the lock's schema, so nothing was written")
      }
      expect(process.calls).toEqual(noCalls())

      // An update that does not encode writes nothing; the lease and its data stay as they were.
      yield* run(Effect.scoped(Effect.gen(function*() {
        const lease = yield* Steps.acquire("steps", { step: 1 })
        const renews = process.calls.renew
        const error = yield* Effect.flip(lease.update({ step: 0 }))
        expect(error).toMatchObject({ _tag: "LockDataError", direction: "encode" })
        expect(process.calls.renew).toBe(renews)
        expect(lease.data).toEqual({ step: 1 })
        expect(yield* lease.isHeld).toBe(true)
      })))
    }))

  it.effect("withLock hands the section the typed lease, data-first and piped; the lock is released after", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const layer = LockStore.layerProcess(backing)
      const seen = yield* Jobs.withLock("jobs/c", { jobId: "c-1", step: 1 }, (lease) =>
        Effect.gen(function*() {
          yield* lease.update({ ...lease.data, step: 2 })
          const inner = yield* Jobs.holder("jobs/c")
          return [lease.data.step, Option.flatMap(inner, (h) => h.data).pipe(Option.map((d) => d.step))] as const
        }), { wait: "1 second" }).pipe(Effect.provide(layer))
      expect(seen).toEqual([2, Option.some(2)])
      expect(Option.isNone(yield* Jobs.holder("jobs/c").pipe(Effect.provide(layer)))).toBe(true)

      const piped = yield* Effect.succeed("done").pipe(
        Jobs.withLock("jobs/c", { jobId: "c-2", step: 1 }, { wait: "1 second" }),
        Effect.provide(layer)
      )
      expect(piped).toBe("done")
      const pipedWithLease = yield* Jobs.withLock("jobs/c", { jobId: "c-3", step: 1 })((lease) =>
        Effect.succeed(lease.data.jobId)
      ).pipe(Effect.provide(layer))
      expect(pipedWithLease).toBe("c-3")
    }))

  it.effect("inside withLock, a nested acquire of the same name re-enters: the outer data, no store call", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      yield* Jobs.withLock("jobs/d", { jobId: "d-1", step: 1 }, (outer) =>
        Effect.gen(function*() {
          yield* outer.update({ jobId: "d-1", step: 2 })
          const calls = { ...process.calls }
          const inner = yield* Effect.scoped(Jobs.acquire("jobs/d", { jobId: "other", step: 9 }))
          expect(process.calls).toEqual(calls)
          expect([inner.fence, inner.data]).toEqual([outer.fence, { jobId: "d-1", step: 2 }])
        })).pipe(Effect.provide(process.layer))
    }))

  it.effect("a lost lease: update fails with LockLost, and withLock's section ends with it", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const process = yield* probe(backing)
      process.failing("renew", true)
      const leaseOf = yield* Deferred.make<TypedLock.TypedLease<typeof Job.Type>>()
      const section = yield* forkChild(
        Jobs.withLock(
          "jobs/e",
          { jobId: "e-1", step: 1 },
          (lease) => Effect.andThen(Deferred.succeed(leaseOf, lease), Effect.never),
          { lease: "3 seconds" }
        ).pipe(Effect.provide(process.layer))
      )
      const lease = yield* Deferred.await(leaseOf)
      yield* TestClock.adjust("2700 millis")
      expect(yield* Effect.flip(yield* Fiber.await(section))).toMatchObject({ _tag: "LockLost", reason: "expired" })
      process.failing("renew", false)
      const error = yield* Effect.flip(lease.update({ jobId: "e-1", step: 2 }))
      expect(error).toMatchObject({ _tag: "LockLost", reason: "expired", name: "jobs/e" })
      expect(lease.data).toEqual({ jobId: "e-1", step: 1 })
    }))

  it.effect("spans: TypedLock.acquire, TypedLock.update around Lock.updateData, TypedLock.holder", () =>
    Effect.gen(function*() {
      const { spans, tracer } = recordingTracer()
      yield* Effect.scoped(Effect.gen(function*() {
        const lease = yield* Jobs.acquire("jobs/f", { jobId: "f-1", step: 1 })
        yield* lease.update({ jobId: "f-1", step: 2 })
        yield* Jobs.holder("jobs/f")
      })).pipe(Effect.provide(LockStore.layerMemory), Effect.withTracer(tracer))
      const names = spans.map((span) => span.name)
      expect(names).toEqual([
        "TypedLock.acquire",
        "Lock.acquire",
        "TypedLock.update",
        "Lock.updateData",
        "TypedLock.holder",
        "Lock.release"
      ])
      const span = (name: string) => spans.find((s) => s.name === name)!
      expect(span("TypedLock.acquire").attributes.get("lock.name")).toBe("jobs/f")
      expect(span("TypedLock.update").attributes.get("lock.fence")).toBe(1)
      expect(span("Lock.updateData").attributes.get("lock.owner")).toBe(
        span("Lock.acquire").attributes.get("lock.owner")
      )
      expect(Option.map(span("Lock.updateData").parent, (parent) => parent.spanId)).toEqual(Option.some("3"))
      expect(span("TypedLock.holder").attributes.get("lock.name")).toBe("jobs/f")
    }))

  it.effect("README-data: a section that records its progress, read by another process in one call", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const other = LockStore.layerProcess(shared)
      const steps: Array<readonly [string, number]> = []
      const seen: Array<Option.Option<number>> = []
      const runStep = (jobId: string, step: number) =>
        Effect.gen(function*() {
          steps.push([jobId, step])
          const progress = yield* Jobs.holder("jobs/nightly").pipe(Effect.provide(other))
          seen.push(Option.flatMap(progress, (holder) => Option.map(holder.data, (data) => data.step)))
        })
      yield* Jobs.withLock("jobs/nightly", { jobId: "n-42", step: 1 }, (lease) =>
        Effect.gen(function*() {
          for (let step = 1; step <= 3; step++) {
            yield* lease.update({ jobId: lease.data.jobId, step })
            yield* runStep(lease.data.jobId, step)
          }
        }), { wait: "30 seconds" }).pipe(Effect.provide(LockStore.layerProcess(shared)))
      expect(steps).toEqual([["n-42", 1], ["n-42", 2], ["n-42", 3]])
      expect(seen).toEqual([Option.some(1), Option.some(2), Option.some(3)])
      expect(yield* Jobs.holder("jobs/nightly").pipe(Effect.provide(other))).toEqual(Option.none())
    }))

  it.effect("an Effect.fn section gets the typed lease's type, and runs with it", () =>
    Effect.gen(function*() {
      const section = Jobs.withLock(
        "jobs/typed-fn",
        { jobId: "fn", step: 1 },
        Effect.fn(function*(lease) {
          expectTypeOf(lease).toEqualTypeOf<TypedLock.TypedLease<typeof Job.Type, never>>()
          return [lease.data.jobId, lease.fence] as const
        })
      )
      expect(yield* section.pipe(Effect.provide(LockStore.layerMemory))).toEqual(["fn", 1])
    }))
})
