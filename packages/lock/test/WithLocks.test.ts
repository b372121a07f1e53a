import { describe, expect, it } from "@effect/vitest"
import { LeaseSession, Lock, LockError, LockStore } from "@leasehold/lock"
import { Clock, Effect, Exit, Fiber, Option } from "effect"
import { forkChild, TestClock } from "./effectLine.js"
import { probe, repeatTimes, settle, sharedMemory } from "./support.js"

/** Moves the clock in steps of 100 ms, letting the fibers it wakes finish their work in between. */
const advance = (ms: number) => Effect.andThen(TestClock.adjust("100 millis"), settle).pipe(repeatTimes(ms / 100))

/** One process's view of the shared store. */
const inProcess = (store: LockStore.LockStore) =>
  Effect.provideService(LockStore.LockStore, LockStore.processView(store))

const ownerOf = (store: LockStore.LockStore, name: string) =>
  Effect.map(store.inspect(name), (record) => Option.getOrUndefined(record)?.owner)

/** Another process holds `name` for `ms`. */
const heldElsewhere = (store: LockStore.LockStore, name: string, ms: number) =>
  forkChild(Lock.withLock(name, Effect.sleep(ms)).pipe(inProcess(store)))

describe("Lock.withLocks", () => {
  it.effect("holds every lock during the section, hands it the leases in the order given, and releases them after", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const seen = yield* Lock.withLocks(["b", "a", "c", "a"], (leases) =>
        Effect.gen(function*() {
          const owners = yield* Effect.forEach(["a", "b", "c"], (name) => ownerOf(shared, name))
          return { names: leases.map((lease) => lease.name), owners, fences: leases.map((lease) => lease.fence) }
        })).pipe(inProcess(shared))
      expect(seen.names).toEqual(["b", "a", "c", "a"])
      expect(seen.fences[1]).toBe(seen.fences[3])
      expect(seen.owners.every((owner) => owner !== undefined)).toBe(true)
      for (const name of ["a", "b", "c"]) expect(yield* ownerOf(shared, name)).toBeUndefined()
    }))

  it.effect("never deadlocks: two processes asking for the same locks in opposite orders both finish", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const options = { wait: "forever", pollInterval: "100 millis" } as const
      const section = (who: string) =>
        Effect.andThen(Effect.sleep("500 millis"), Effect.map(Clock.currentTimeMillis, (at) => ({ who, at })))
      const first = yield* forkChild(Lock.withLocks(["x", "y"], section("first"), options).pipe(inProcess(shared)))
      const second = yield* forkChild(Lock.withLocks(["y", "x"], section("second"), options).pipe(inProcess(shared)))
      yield* advance(5_000)
      const ends = [yield* Fiber.join(first), yield* Fiber.join(second)].sort((p, q) => p.at - q.at)
      // One after the other: the second section started once the first had released both.
      expect(ends[1]!.at - ends[0]!.at).toBeGreaterThanOrEqual(500)
    }))

  it.effect("all or none: a lock it can not take gives back the ones taken, and the section never runs", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      yield* heldElsewhere(shared, "m", 60_000)
      yield* settle
      let ran = false
      const attempt = yield* forkChild(
        Effect.flip(Lock.withLocks(["a", "m", "z"], Effect.sync(() => ran = true), { wait: "1 second" })).pipe(
          inProcess(shared)
        )
      )
      yield* advance(1_500)
      const error = yield* Fiber.join(attempt)
      expect(error._tag).toBe("LockNotAcquired")
      if (error._tag === "LockNotAcquired") expect(error.name).toBe("m")
      expect(ran).toBe(false)
      // "a" was taken before "m" and given back; "z" was never asked for.
      expect(yield* ownerOf(shared, "a")).toBeUndefined()
      expect(Option.isNone(yield* shared.inspect("z"))).toBe(true)
    }))

  it.effect("wait bounds the whole set: each lock waits what the ones before it left", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      yield* heldElsewhere(shared, "p", 600)
      yield* heldElsewhere(shared, "q", 1_500)
      yield* settle
      const startedAt = yield* Clock.currentTimeMillis
      const attempt = yield* forkChild(
        Effect.exit(Lock.withLocks(["p", "q"], Effect.void, { wait: "1 second", pollInterval: "50 millis" })).pipe(
          inProcess(shared)
        )
      )
      yield* advance(3_000)
      const exit = yield* Fiber.join(attempt)
      expect(Exit.isFailure(exit)).toBe(true)
      const error = yield* Effect.flip(exit)
      expect(error._tag).toBe("LockNotAcquired")
      // Gave up at the whole wait's end, not a second after "p" was taken.
      if (error._tag === "LockNotAcquired") expect(startedAt + error.waitedMs).toBeLessThan(startedAt + 1_200)
      expect(yield* ownerOf(shared, "p")).toBeUndefined()
    }))

  it.effect("the loss of any of the locks interrupts the section, which fails with that lock's LockLost", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      let interrupted = false
      const running = yield* forkChild(
        Effect.flip(
          Lock.withLocks(
            ["r", "s"],
            Effect.never.pipe(Effect.onInterrupt(() => Effect.sync(() => interrupted = true))),
            { lease: "3 seconds" }
          )
        ).pipe(inProcess(shared))
      )
      yield* settle
      // An operator clears "s": its holder learns it at its next renew.
      yield* shared.forceRelease("s")
      yield* advance(4_000)
      const error = yield* Fiber.join(running)
      expect(interrupted).toBe(true)
      expect(error._tag).toBe("LockLost")
      if (error._tag === "LockLost") expect(error.name).toBe("s")
      expect(yield* ownerOf(shared, "r")).toBeUndefined()
    }))

  it.effect("a lock taken first and lost while a later one is waited for fails the call, and the section never runs", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const process = yield* probe(shared)
      yield* heldElsewhere(shared, "l2", 5_000)
      yield* settle
      let ran = false
      const attempt = yield* forkChild(
        Effect.flip(
          Lock.withLocks(["l1", "l2"], Effect.sync(() => ran = true), { lease: "2 seconds", wait: "forever" })
        ).pipe(Effect.provide(process.layer))
      )
      yield* settle
      // The store stops taking this process's renews: "l1" is lost long before "l2" is free.
      process.failing("renew", true)
      yield* advance(6_000)
      const error = yield* Fiber.join(attempt)
      expect(ran).toBe(false)
      expect(error._tag).toBe("LockLost")
      if (error._tag === "LockLost") expect(error.name).toBe("l1")
      // "l2", taken after its holder let it go, was given back.
      expect(yield* ownerOf(shared, "l2")).toBeUndefined()
    }))

  it.effect("checks every name before taking any lock", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      for (const names of [[], ["a", ""], "ab"] as const) {
        const error = yield* Effect.flip(Lock.withLocks(names as Iterable<string>, Effect.void).pipe(inProcess(shared)))
        expect(error._tag).toBe("LockConfigError")
      }
      expect(Option.isNone(yield* shared.inspect("a"))).toBe(true)
    }))

  it.effect("re-enters a lock the fiber already holds, and takes the others", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const fences = yield* Lock.withLock("outer", (outer) =>
        Lock.withLocks(["outer", "inner"], ([again, inner]) =>
          Effect.succeed([outer.fence, again!.fence, inner!.name])))
        .pipe(inProcess(shared))
      expect(fences[0]).toBe(fences[1])
      expect(fences[2]).toBe("inner")
    }))

  it.effect("is pipeable", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const value = yield* Effect.succeed(42).pipe(Lock.withLocks(["u", "v"]), inProcess(shared))
      expect(value).toBe(42)
    }))
})

describe("Lock.withLocks with transaction", () => {
  const together = { transaction: true } as const

  it.effect("takes free locks in one store call, hands the section their leases, and releases them after", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const process = yield* probe(LockStore.processView(shared))
      const seen = yield* Lock.withLocks(["d", "b", "a", "c"], (leases) =>
        Effect.gen(function*() {
          const owners = yield* Effect.forEach(["a", "b", "c", "d"], (name) => ownerOf(shared, name))
          return { names: leases.map((lease) => lease.name), owners, fences: leases.map((lease) => lease.fence) }
        }), together).pipe(Effect.provide(process.layer))
      expect(process.calls.tryAcquireAll).toBe(1)
      expect(process.calls.tryAcquire).toBe(0)
      expect(seen.names).toEqual(["d", "b", "a", "c"])
      expect(seen.owners.every((owner) => owner !== undefined)).toBe(true)
      expect(new Set(seen.owners).size).toBe(4)
      for (const name of ["a", "b", "c", "d"]) expect(yield* ownerOf(shared, name)).toBeUndefined()
      // Fences only grow: the next take of the same locks, one at a time, gets higher ones.
      const next = yield* Lock.withLocks(seen.names, (leases) => Effect.succeed(leases.map((lease) => lease.fence)))
        .pipe(inProcess(shared))
      next.forEach((fence, i) => expect(fence).toBeGreaterThan(seen.fences[i]!))
    }))

  it.effect("a lock held elsewhere refuses the call, changes nothing, and the set is taken one at a time", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      yield* heldElsewhere(shared, "b", 1_000)
      yield* settle
      const process = yield* probe(LockStore.processView(shared))
      const attempt = yield* forkChild(
        Lock.withLocks(["a", "b", "c"], Clock.currentTimeMillis, { ...together, wait: "5 seconds" }).pipe(
          Effect.provide(process.layer)
        )
      )
      yield* settle
      // Refused as a whole: "a" and "c" were not taken while "b" is waited for one at a time.
      expect(process.calls.tryAcquireAll).toBe(1)
      expect(yield* ownerOf(shared, "c")).toBeUndefined()
      yield* advance(2_000)
      const enteredAt = yield* Fiber.join(attempt)
      expect(enteredAt).toBeGreaterThanOrEqual(1_000)
      expect(process.calls.tryAcquire).toBeGreaterThanOrEqual(3)
    }))

  for (const mayHaveApplied of [true, undefined]) {
    it.effect(
      `an answer lost after the store applied it (mayHaveApplied ${mayHaveApplied}): what it took is given back, then taken one at a time`,
      () =>
        Effect.gen(function*() {
          const shared = sharedMemory()
          const lossy = LockStore.intercept(LockStore.processView(shared), (operation, call) =>
            operation === "tryAcquireAll"
              ? Effect.andThen(
                call,
                Effect.fail(
                  new LockError.LockStoreError({ operation, retryable: true, mayHaveApplied, message: "answer lost" })
                )
              )
              : call)
          const owners = yield* Lock.withLocks(
            ["x", "y"],
            Effect.forEach(["x", "y"], (name) =>
              ownerOf(shared, name)),
            { ...together, wait: "1 second" }
          ).pipe(Effect.provideService(LockStore.LockStore, lossy))
          // Taken at once, one at a time, by owners of their own: the lost take's leases were not left to run out.
          expect(owners.every((owner) =>
            owner !== undefined
          )).toBe(true)
          for (const name of ["x", "y"]) expect(yield* ownerOf(shared, name)).toBeUndefined()
        })
    )
  }

  it.effect("a take that hangs is abandoned once the wait is over, given back, and the locks taken one at a time", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const hanging = LockStore.intercept(
        LockStore.processView(shared),
        (operation, call) => operation === "tryAcquireAll" ? Effect.andThen(Effect.sleep("1 minute"), call) : call
      )
      const section = yield* forkChild(
        Lock.withLocks(["x", "y"], Clock.currentTimeMillis, { ...together, wait: "500 millis" }).pipe(
          Effect.provideService(LockStore.LockStore, hanging)
        )
      )
      yield* advance(3_000)
      const ranAt = yield* Fiber.join(section)
      // The wait and the slack a call in flight gets, as for a single acquire: never the minute the call hangs.
      expect(ranAt).toBeLessThanOrEqual(2_000)
    }))

  it.effect("a store without transactions, a re-entered name and a name this process queues for: one at a time", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const { tryAcquireAll: _, ...plain } = LockStore.processView(shared)
      const noTransactions = yield* probe(plain)
      yield* Lock.withLocks(["a", "b"], Effect.void, together).pipe(Effect.provide(noTransactions.layer))
      expect(noTransactions.calls.tryAcquire).toBe(2)

      const process = yield* probe(LockStore.processView(shared))
      yield* Lock.withLock("a", Lock.withLocks(["a", "b"], Effect.void, together)).pipe(Effect.provide(process.layer))
      expect(process.calls.tryAcquireAll).toBe(0)

      const queued = yield* probe(LockStore.processView(shared))
      const holder = yield* forkChild(Lock.withLock("b", Effect.sleep("1 second")).pipe(Effect.provide(queued.layer)))
      yield* settle
      const after = yield* forkChild(
        Lock.withLocks(["a", "b"], Effect.void, { ...together, wait: "5 seconds" }).pipe(Effect.provide(queued.layer))
      )
      yield* advance(1_500)
      yield* Fiber.join(holder)
      yield* Fiber.join(after)
      expect(queued.calls.tryAcquireAll).toBe(0)
    }))

  it.effect("under a lease session, the locks taken together are held under it", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const process = yield* probe(LockStore.processView(shared))
      const sessions = yield* Lock.withLocks(
        ["p", "q"],
        Effect.forEach(
          ["p", "q"],
          (name) => Effect.map(shared.inspect(name), (r) => Option.getOrUndefined(r)?.session)
        ),
        together
      ).pipe(Effect.provide(LeaseSession.layer()), Effect.provide(process.layer))
      expect(process.calls.tryAcquireAll).toBe(1)
      expect(sessions[0]).toBeDefined()
      expect(sessions).toEqual([sessions[0], sessions[0]])
    }))
})
