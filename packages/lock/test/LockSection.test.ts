// A section made from what it holds: `Lock.withLock(name, (lease) => ...)` and `Semaphore.withPermits(name,
// (permits) => ...)` hand the section its lease, beside the forms that take a program, which keep working as they did.
import { describe, expect, expectTypeOf, it } from "@effect/vitest"
import { LeaderElection, type Lease, Lock, type LockError, LockStore, type Permits, Semaphore } from "@leasehold/lock"
import { Effect, Exit, Fiber, Layer, Option } from "effect"
import { forkChild, reasons, Service, TestClock, withFixedRandom } from "./effectLine.js"
import { probe, settle, sharedMemory } from "./support.js"

/** The lock's record as the store keeps it. */
const recordOf = (store: LockStore.LockStore, name: string) => Effect.map(store.inspect(name), Option.getOrThrow)

/** What a section saw of the lease it was handed, and whether the store agreed that it held the lock. */
const sawHeld = (store: LockStore.LockStore) => (lease: Lease.Lease) =>
  Effect.gen(function*() {
    const record = yield* recordOf(store, lease.name)
    return {
      name: lease.name,
      fence: lease.fence,
      ownedInStore: record.owner === lease.owner && record.fence === lease.fence,
      held: yield* lease.isHeld
    }
  })

describe("Lock.withLock with a function of the lease", () => {
  it.effect("hands the section the lease it holds: its name, the store's fence and owner, held", () =>
    Effect.gen(function*() {
      const store = sharedMemory()
      const layer = Layer.succeed(LockStore.LockStore, store)
      // An earlier holder, so that the fence handed in is not the first one by chance.
      yield* Lock.withLock("orders/42", Effect.void).pipe(Effect.provide(layer))
      const first = yield* recordOf(store, "orders/42")
      const seen = yield* Lock.withLock("orders/42", sawHeld(store), { holder: "billing" }).pipe(Effect.provide(layer))
      expect(seen).toEqual({ name: "orders/42", fence: first.fence + 1, ownedInStore: true, held: true })
      // Released when the section ended.
      expect((yield* recordOf(store, "orders/42")).owner).toBeUndefined()
      // Not held: the function is never called.
      let called = 0
      const refused = yield* Effect.scoped(Effect.gen(function*() {
        yield* Lock.acquire("orders/42")
        return yield* Effect.flip(
          Lock.withLock("orders/42", () => Effect.sync(() => called++)).pipe(
            Effect.provide(LockStore.layerProcess(store))
          )
        )
      })).pipe(Effect.provide(layer))
      expect([refused._tag, called]).toEqual(["LockNotAcquired", 0])
    }))

  it.effect("the lease handed in is the one a nested acquire re-enters, and a nested withLock hands on", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      const [outer, acquired, inner] = yield* Lock.withLock("jobs/a", (lease) =>
        Effect.gen(function*() {
          const again = yield* Effect.scoped(Lock.acquire("jobs/a"))
          const nested = yield* Lock.withLock("jobs/a", (nestedLease) => Effect.succeed(nestedLease))
          return [lease, again, nested] as const
        })).pipe(Effect.provide(process.layer))
      expect(acquired).toBe(outer)
      expect(inner).toBe(outer)
      // One acquisition, one release: the nested calls re-entered without a store call.
      expect([process.calls.tryAcquire, process.calls.release]).toEqual([1, 1])
      expect(yield* outer.status).toEqual({ _tag: "Released" })
    }))

  it.effect("inside a scoped acquire, the function gets that acquisition's lease", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      const [held, handed] = yield* Effect.scoped(Effect.gen(function*() {
        const lease = yield* Lock.acquire("reports/daily")
        return [lease, yield* Lock.withLock("reports/daily", Effect.succeed)] as const
      })).pipe(Effect.provide(process.layer))
      expect(handed).toBe(held)
      expect(process.calls.tryAcquire).toBe(1)
    }))

  it.effect("a lost lease interrupts the section and fails with LockLost for the fence that was handed in", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const [a, b] = yield* Effect.all([probe(backing), probe(backing)])
      const handed: Array<Lease.Lease> = []
      let interrupted = false
      const victim = yield* forkChild(
        Lock.withLock("stolen", (lease) => {
          handed.push(lease)
          return Effect.never.pipe(Effect.onInterrupt(() => Effect.sync(() => interrupted = true)))
        }, { lease: "30 seconds" }).pipe(Effect.provide(a.layer))
      )
      yield* settle
      yield* b.service.forceRelease("stolen")
      const thief = yield* Lock.acquire("stolen", { holder: "thief" }).pipe(Effect.provide(b.layer))
      // The first renew goes at the latest point it may (the draw below): one heartbeat in.
      yield* TestClock.adjust("10 seconds")
      const error = yield* Effect.flip(Fiber.join(victim))
      expect(interrupted).toBe(true)
      expect(error._tag).toBe("LockLost")
      if (error._tag !== "LockLost") return
      expect([error.reason, error.fence, error.owner, error.by?.owner]).toEqual([
        "stolen",
        handed[0]!.fence,
        handed[0]!.owner,
        thief.owner
      ])
      expect((yield* handed[0]!.status)._tag).toBe("Lost")
    }).pipe(Effect.scoped, withFixedRandom([0])))

  it.effect("a function that throws fails the section with that defect, and the lock is released", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      const exit = yield* Effect.exit(
        Lock.withLock("throws", (): Effect.Effect<void> => {
          throw new Error("no program")
        }).pipe(Effect.provide(process.layer))
      )
      expect(Exit.isFailure(exit) && reasons(exit.cause).map((reason) => reason._tag)).toEqual(["Die"])
      expect([process.calls.tryAcquire, process.calls.release]).toEqual([1, 1])
    }))

  it.effect("the forms that take a program still run it under the lock: data-first and pipeable, with options", () =>
    Effect.gen(function*() {
      const store = sharedMemory()
      const layer = Layer.succeed(LockStore.LockStore, store)
      const owned = Effect.map(recordOf(store, "old"), (record) => record.holder)
      const results = yield* Effect.all([
        Lock.withLock("old", owned),
        Lock.withLock("old", owned, { holder: "data-first" }),
        owned.pipe(Lock.withLock("old")),
        owned.pipe(Lock.withLock("old", { holder: "pipeable" })),
        // Options left out explicitly, as `exactOptionalPropertyTypes` lets a caller write them.
        owned.pipe(Lock.withLock("old", undefined))
      ]).pipe(Effect.provide(layer), Effect.provide(Lock.layerDefaults({ holder: "default" })))
      expect(results).toEqual(["default", "data-first", "default", "pipeable", "default"])
      // Held by another process: the section does not run.
      const refused = yield* Effect.scoped(Effect.gen(function*() {
        yield* Lock.acquire("old")
        return yield* Effect.flip(Lock.withLock("old", Effect.void).pipe(Effect.provide(LockStore.layerProcess(store))))
      })).pipe(Effect.provide(layer))
      expect(refused._tag).toBe("LockNotAcquired")
    }))

  it.effect("an effect that is also a function is run as a program, never called with the lease", () =>
    Effect.gen(function*() {
      const defaults = { holder: "from-defaults" }
      // A reference is a function and an effect on both lines (a class on Effect 3, a key on Effect 4); so is a
      // service key on Effect 4.
      expect([typeof Lock.LockDefaults, Effect.isEffect(Lock.LockDefaults)]).toEqual(["function", true])
      const Ticks = Service<{ readonly tick: number }>("test/Ticks")
      const [fromReference, fromService, piped] = yield* Effect.all([
        Lock.withLock("callable", Lock.LockDefaults),
        Lock.withLock("callable", Ticks, { wait: "1 second" }),
        Lock.LockDefaults.pipe(Lock.withLock("callable"))
      ]).pipe(
        Effect.provide(LockStore.layerMemory),
        Effect.provide(Lock.layerDefaults(defaults)),
        Effect.provideService(Ticks, { tick: 7 })
      )
      expect([fromReference, fromService, piped]).toEqual([defaults, { tick: 7 }, defaults])
    }))

  it.effect("types: the section's parameter is the lease, also in Effect.fn, and `any` options stay options", () =>
    Effect.gen(function*() {
      type LockErrors =
        | LockError.LockNotAcquired
        | LockError.LockLost
        | LockError.LockStoreError
        | LockError.LockConfigError
      const plain = Lock.withLock("t", (lease) => Effect.succeed(lease.fence))
      expectTypeOf(plain).toEqualTypeOf<Effect.Effect<number, LockErrors, LockStore.LockStore>>()
      // A generator function made with Effect.fn takes the lease's type from withLock, as a plain function does.
      const fenced = Lock.withLock(
        "t",
        Effect.fn(function*(lease) {
          expectTypeOf(lease).toEqualTypeOf<Lease.Lease>()
          return yield* Effect.fail(`fence ${lease.fence}` as const)
        })
      )
      expectTypeOf(fenced).toEqualTypeOf<Effect.Effect<never, `fence ${number}` | LockErrors, LockStore.LockStore>>()
      // A program keeps its forms; options typed `any` are still options, so the pipeable form is what they give.
      const options: any = { wait: "1 second" }
      const piped = Effect.succeed(1).pipe(Lock.withLock("t", options))
      expectTypeOf(piped).toEqualTypeOf<Effect.Effect<number, LockErrors, LockStore.LockStore>>()
      const permits = Semaphore.withPermits("t", (held) => Effect.succeed(held), { limit: 2 })
      expectTypeOf(permits).toEqualTypeOf<
        Effect.Effect<Permits.Permits, LockErrors | LockError.SemaphoreLimitMismatch, LockStore.LockStore>
      >()
      const ran = yield* Effect.all([plain, Effect.flip(fenced), piped, permits]).pipe(
        Effect.provide(LockStore.layerMemory)
      )
      expect(ran.slice(0, 3)).toEqual([1, "fence 2", 1])
      expect([ran[3].fence, ran[3].limit]).toEqual([1, 2])
    }))
})

describe("Semaphore.withPermits with a function of the permits", () => {
  it.effect("hands the section the permits it holds: their fence, count and limit, as the store keeps them", () =>
    Effect.gen(function*() {
      const store = sharedMemory()
      const layer = Layer.succeed(LockStore.LockStore, store)
      const [seen, holders] = yield* Semaphore.withPermits("pool", (permits) =>
        Effect.map(
          Effect.map(store.inspectSemaphore("pool"), Option.getOrThrow),
          (record) => [permits, record.holders] as const
        ), { limit: 3, permits: 2 }).pipe(Effect.provide(layer))
      expect([seen.name, seen.permits, seen.limit]).toEqual(["pool", 2, 3])
      expect(holders.map((holder) => [holder.owner, holder.fence, holder.permits])).toEqual([
        [seen.owner, seen.fence, 2]
      ])
      expect(yield* seen.status).toEqual({ _tag: "Released" })
      // The forms that take a program: data-first and pipeable.
      const held = Effect.map(store.inspectSemaphore("pool"), (record) => Option.getOrThrow(record).used)
      expect(
        yield* Effect.all([
          Semaphore.withPermits("pool", held, { limit: 3 }),
          held.pipe(Semaphore.withPermits("pool", { limit: 3, permits: 3 }))
        ]).pipe(Effect.provide(layer))
      ).toEqual([1, 3])
    }))

  it.effect("permits lost while held interrupt the section with LockLost for the fence handed in", () =>
    Effect.gen(function*() {
      const a = yield* probe(sharedMemory())
      a.failing("renewPermits", true)
      let fence: number | undefined
      const running = yield* forkChild(
        Semaphore.withPermits("unrenewed", (permits) => {
          fence = permits.fence
          return Effect.never
        }, { limit: 2, lease: "10 seconds" }).pipe(Effect.provide(a.layer))
      )
      yield* settle
      yield* TestClock.adjust("9 seconds")
      const error = yield* Effect.flip(Fiber.join(running))
      expect(error._tag).toBe("LockLost")
      if (error._tag !== "LockLost") return
      expect([error.reason, error.fence]).toEqual(["expired", fence])
    }))
})

describe("LeaderElection.run", () => {
  it.effect("hands the leader its term's lease, which a withLock of the name inside the term re-enters", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      const [term, handed] = yield* LeaderElection.run(
        "primary",
        (term) => Effect.map(Lock.withLock("primary", Effect.succeed), (lease) => [term, lease] as const)
      ).pipe(
        Effect.provide(process.layer)
      )
      expect(handed).toBe(term.lease)
      expect([term.fence, term.owner]).toEqual([handed.fence, handed.owner])
      expect(process.calls.tryAcquire).toBe(1)
    }))
})
