import { describe, expect, it } from "@effect/vitest"
import { type Lease, Lock, LockError, LockStore } from "@leasehold/lock"
import { Clock, Deferred, Effect, Exit, Fiber, Layer, Option, Stream } from "effect"
import { forkChild, hasInterrupts, poll, TestClock, withFixedRandom, withSeed } from "./effectLine.js"
import { deadHolder, probe, settle, sharedMemory } from "./support.js"

const now = Clock.currentTimeMillis

const ownerOf = (store: LockStore.LockStore, name: string) =>
  Effect.map(store.inspect(name), (record) => Option.getOrUndefined(record)?.owner)

describe("Lock.withLock", () => {
  it.effect("the documented usage forms compile, run, and release right after", () =>
    Effect.gen(function*() {
      const program = Effect.succeed(42)
      const results = [
        yield* Effect.scoped(Lock.withLock("nightly-report", program)),
        yield* program.pipe(Lock.withLock("nightly-report")),
        yield* Lock.withLock("nightly-report", program, { lease: "10 seconds" }),
        yield* program.pipe(Lock.withLock("nightly-report", { lease: "10 seconds" }))
      ]
      expect(results).toEqual([42, 42, 42, 42])
      const store = yield* LockStore.LockStore
      const record = Option.getOrThrow(yield* store.inspect("nightly-report"))
      expect(record.owner).toBeUndefined()
      expect(record.fence).toBe(4)
    }).pipe(Effect.provide(LockStore.layerMemory)))

  it.effect("keeps fibers mutually exclusive and counts every section", () =>
    Effect.gen(function*() {
      let inside = 0
      let maxInside = 0
      let counter = 0
      const section = Effect.gen(function*() {
        inside++
        maxInside = Math.max(maxInside, inside)
        const read = counter
        yield* Effect.sleep("1 second")
        counter = read + 1
        inside--
      })
      const fibers = yield* Effect.forEach(
        Array.from({ length: 10 }),
        () => forkChild(Lock.withLock("counter", section, { wait: "forever" }))
      )
      yield* TestClock.adjust("20 seconds")
      yield* Fiber.joinAll(fibers)
      expect(counter).toBe(10)
      expect(maxInside).toBe(1)
    }).pipe(Effect.provide(LockStore.layerMemory)))

  it.effect("keeps processes that share a store mutually exclusive", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const processes = yield* Effect.all([probe(backing), probe(backing), probe(backing)])
      let inside = 0
      let maxInside = 0
      let sections = 0
      const section = Effect.gen(function*() {
        inside++
        maxInside = Math.max(maxInside, inside)
        yield* Effect.sleep("300 millis")
        sections++
        inside--
      })
      const fibers = yield* Effect.forEach(processes, (process) =>
        forkChild(
          Effect.forEach(
            Array.from({ length: 5 }),
            () => Lock.withLock("shared", section, { wait: "forever", lease: "5 seconds" }),
            { discard: true }
          ).pipe(
            Effect.provide(process.layer)
          )
        ))
      for (let i = 0; i < 120; i++) yield* TestClock.adjust("100 millis")
      yield* Fiber.joinAll(fibers)
      expect(sections).toBe(15)
      expect(maxInside).toBe(1)
    }))

  it.effect("hands over FIFO within a process, without a poll, and only the head calls the store", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      const releaseFirst = yield* Deferred.make<void>()
      const order: Array<string> = []
      const startTimes: Array<number> = []
      const holder = yield* forkChild(
        Lock.withLock("queue", Deferred.await(releaseFirst), { wait: "forever" }).pipe(Effect.provide(process.layer))
      )
      yield* settle
      const waiters: Array<Fiber.Fiber<void, unknown>> = []
      for (const id of ["b", "c", "d"]) {
        const section = Effect.flatMap(now, (t) =>
          Effect.sync(() => {
            order.push(id)
            startTimes.push(t)
          }))
        waiters.push(
          yield* forkChild(
            Lock.withLock("queue", section, { wait: "forever" }).pipe(Effect.provide(process.layer))
          )
        )
        yield* settle
      }
      expect(process.calls.tryAcquire).toBe(1)
      yield* Deferred.succeed(releaseFirst, undefined)
      yield* Fiber.join(holder)
      yield* Fiber.joinAll(waiters)
      expect(order).toEqual(["b", "c", "d"])
      expect(startTimes).toEqual([0, 0, 0])
      expect(process.calls.tryAcquire).toBe(4)
      expect(process.calls.release).toBe(4)
    }))

  it.effect("re-enters a name the fiber already holds, in nested calls and forked children", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      const fences = yield* Effect.gen(function*() {
        const outer = yield* Lock.acquire("reentrant")
        const inner = yield* Lock.withLock("reentrant", Effect.scoped(Lock.acquire("reentrant")))
        const child = yield* forkChild(Lock.withLock("reentrant", Effect.succeed("child ran")))
        expect(yield* Fiber.join(child)).toBe("child ran")
        return [outer.fence, inner.fence]
      }).pipe(Effect.scoped, Effect.provide(process.layer))
      expect(fences[0]).toBe(fences[1])
      expect(process.calls.tryAcquire).toBe(1)
      expect(process.calls.release).toBe(1)
      expect(yield* ownerOf(process.service, "reentrant")).toBeUndefined()
    }))
})

describe("Lock.acquire: waiting and takeover", () => {
  it.effect("fails at once with the holder when the lock is held and wait is the default", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const [a, b] = yield* Effect.all([probe(backing), probe(backing)])
      const held = yield* Lock.acquire("report", { holder: "worker-a" }).pipe(Effect.provide(a.layer))
      const error = yield* Effect.flip(Lock.withLock("report", Effect.void).pipe(Effect.provide(b.layer)))
      expect(error._tag).toBe("LockNotAcquired")
      if (error._tag !== "LockNotAcquired") return
      expect(error.holder?.owner).toBe(held.owner)
      expect(error.holder?.holder).toBe("worker-a")
      expect(error.waitedMs).toBe(0)
      expect(error.message).toContain("worker-a")
      expect(b.calls.tryAcquire).toBe(1)
    }).pipe(Effect.scoped))

  it.effect("a local waiter that runs out of wait reports the local holder and made no store call", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      // The holder is a sibling, not the parent: a fiber forked by the holder would re-enter instead of waiting.
      const acquired = yield* Deferred.make<Lease.Lease>()
      yield* Effect.forkScoped(
        Lock.acquire("local").pipe(
          Effect.flatMap((lease) => Deferred.succeed(acquired, lease)),
          Effect.andThen(Effect.never),
          Effect.scoped,
          Effect.provide(process.layer)
        )
      )
      const held = yield* Deferred.await(acquired)
      const waiter = yield* forkChild(
        Effect.flip(Lock.withLock("local", Effect.void, { wait: "5 seconds" })).pipe(Effect.provide(process.layer))
      )
      yield* TestClock.adjust("5 seconds")
      const error = yield* Fiber.join(waiter)
      expect(error._tag).toBe("LockNotAcquired")
      if (error._tag !== "LockNotAcquired") return
      expect(error.holder?.owner).toBe(held.owner)
      expect(error.waitedMs).toBe(5000)
      expect(process.calls.tryAcquire).toBe(1)
    }).pipe(Effect.scoped))

  it.effect("absolute mode takes over a dead holder's lock at leaseUntil + maxClockSkew and not before", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      // A holder that wrote its lease and died: no heartbeat, no release.
      yield* deadHolder(backing, "job", 30_000)
      const process = yield* probe(backing)
      const taker = yield* forkChild(
        Effect.scoped(Lock.acquire("job", { wait: "forever", lease: "30 seconds", maxClockSkew: "10 seconds" }))
          .pipe(Effect.andThen(now), Effect.provide(process.layer))
      )
      yield* TestClock.adjust("40 seconds")
      expect(yield* ownerOf(backing, "job")).toBe("dead")
      expect(Option.isNone(yield* poll(taker))).toBe(true)
      yield* TestClock.adjust("1 millis")
      expect(yield* Fiber.join(taker)).toBe(40_001)
    }))

  it.effect("observed mode takes over only after watching a full lease go by unchanged", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      yield* deadHolder(backing, "job", 30_000)
      const process = yield* probe(backing)
      yield* TestClock.adjust("5 seconds")
      const taker = yield* forkChild(
        Effect.scoped(Lock.acquire("job", { wait: "forever", takeover: "observed", maxClockSkew: "1 hour" })).pipe(
          Effect.andThen(now),
          Effect.provide(process.layer)
        )
      )
      yield* TestClock.adjust("29999 millis")
      expect(Option.isNone(yield* poll(taker))).toBe(true)
      yield* TestClock.adjust("1 millis")
      // First seen at 5 s, so stale at 35 s: earlier than absolute mode would allow (30 s + 1 hour of skew).
      expect(yield* Fiber.join(taker)).toBe(35_000)
    }))

  it.effect("observed mode never takes over from a holder that keeps renewing", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const [a, b] = yield* Effect.all([probe(backing), probe(backing)])
      const options = { takeover: "observed", lease: "3 seconds" } as const
      const holder = yield* Lock.acquire("job", options).pipe(Effect.provide(a.layer))
      const waiter = yield* forkChild(
        Effect.flip(Lock.withLock("job", Effect.void, { ...options, wait: "20 seconds" })).pipe(Effect.provide(b.layer))
      )
      yield* TestClock.adjust("20 seconds")
      const error = yield* Fiber.join(waiter)
      expect(error._tag).toBe("LockNotAcquired")
      expect((yield* holder.status)._tag).toBe("Held")
      expect(a.calls.renew).toBeGreaterThan(15)
    }).pipe(Effect.scoped))

  it.effect("fences strictly increase across holders, processes, releases and takeovers", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const [a, b] = yield* Effect.all([probe(backing), probe(backing)])
      const fences: Array<number> = []
      const take = (process: typeof a) =>
        Effect.scoped(Lock.acquire("fenced", { wait: "forever", lease: "2 seconds", maxClockSkew: 0 })).pipe(
          Effect.map((lease) => fences.push(lease.fence)),
          Effect.provide(process.layer)
        )
      for (let i = 0; i < 10; i++) yield* take(i % 2 === 0 ? a : b)
      // A holder that dies without releasing: the next one takes over after the lease.
      yield* deadHolder(backing, "fenced", 2_000)
      const taker = yield* forkChild(take(b))
      yield* TestClock.adjust("3 seconds")
      yield* Fiber.join(taker)
      yield* take(a)
      expect(fences.length).toBe(12)
      for (let i = 1; i < fences.length; i++) expect(fences[i]!).toBeGreaterThan(fences[i - 1]!)
      expect(fences.every(Number.isSafeInteger)).toBe(true)
    }))

  it.effect("an interrupted acquire whose write applied but whose answer is pending leaves nothing held", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const [a, b] = yield* Effect.all([probe(backing), probe(backing)])
      yield* a.hold("tryAcquire", "after")
      const acquiring = yield* forkChild(Effect.scoped(Lock.acquire("slow")).pipe(Effect.provide(a.layer)))
      yield* a.held
      expect(yield* ownerOf(backing, "slow")).toBeDefined()
      yield* Fiber.interrupt(acquiring)
      expect(yield* ownerOf(backing, "slow")).toBeUndefined()
      yield* a.open
      const lease = yield* Effect.scoped(Lock.acquire("slow")).pipe(Effect.provide(b.layer))
      expect(lease.fence).toBeGreaterThan(0)
    }))

  it.effect("an acquire interrupted before its write reached the store leaves nothing held", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const a = yield* probe(backing)
      yield* a.hold("tryAcquire", "before")
      const acquiring = yield* forkChild(Effect.scoped(Lock.acquire("slow")).pipe(Effect.provide(a.layer)))
      yield* a.held
      yield* Fiber.interrupt(acquiring)
      expect(Option.isNone(yield* backing.inspect("slow"))).toBe(true)
      // The local queue is free again too.
      yield* a.open
      yield* Effect.scoped(Lock.acquire("slow")).pipe(Effect.provide(a.layer))
    }))

  it.effect("a retried acquire whose first answer was lost recognises its own record", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      let first = true
      const lossy: LockStore.LockStore = {
        ...backing,
        tryAcquire: (request) =>
          Effect.flatMap(backing.tryAcquire(request), (result) => {
            if (!first) return Effect.succeed(result)
            first = false
            return Effect.fail(
              new LockError.LockStoreError({ operation: "tryAcquire", retryable: true, message: "answer lost" })
            )
          })
      }
      const fiber = yield* forkChild(
        Effect.scoped(Lock.acquire("lossy", { wait: "10 seconds" })).pipe(
          Effect.provide(Layer.succeed(LockStore.LockStore, lossy))
        )
      )
      yield* TestClock.adjust("2 seconds")
      const lease = yield* Fiber.join(fiber)
      expect(lease.fence).toBe(1)
    }))
})

/** Random draws at the top of their range: the first renew at the latest point it may go, one heartbeat in. */
const latestFirstRenew = withFixedRandom([0])

describe("Lock: holding, heartbeats and loss", () => {
  it.effect("renews at a fixed rate: a slow renew does not push the next one later", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      const fiber = yield* forkChild(
        Lock.withLock("steady", Effect.sleep("35 seconds"), { lease: "30 seconds" }).pipe(
          Effect.provide(process.layer)
        )
      )
      // The first renew is sent at 10 s and answered at 12 s.
      yield* process.hold("renew", "before")
      yield* TestClock.adjust("10 seconds")
      yield* process.held
      yield* TestClock.adjust("2 seconds")
      yield* process.open
      yield* TestClock.adjust("7999 millis")
      expect(process.calls.renew).toBe(1)
      // The next is due at 20 s (10 s after the first was due), not at 22 s (10 s after it was answered).
      yield* TestClock.adjust("1 millis")
      expect(process.calls.renew).toBe(2)
      yield* TestClock.adjust("15 seconds")
      expect(Exit.isSuccess(yield* Fiber.await(fiber))).toBe(true)
      expect(process.calls.renew).toBe(3)
    }).pipe(latestFirstRenew))

  for (const [draw, firstMs] of [[0, 10_000], [0.5, 7_500], [1, 5_000]] as const) {
    it.effect(`renews every heartbeat, the first at ${firstMs} ms of a 10 s heartbeat (draw ${draw}), and stops after release`, () =>
      Effect.gen(function*() {
        const process = yield* probe(sharedMemory())
        const fiber = yield* forkChild(
          Lock.withLock("beat", Effect.sleep("96 seconds"), { lease: "30 seconds" }).pipe(Effect.provide(process.layer))
        )
        // The first renew goes in the second half of the first heartbeat: never sooner, never later than a full one.
        yield* TestClock.adjust(firstMs - 1)
        expect(process.calls.renew).toBe(0)
        yield* TestClock.adjust(1)
        expect(process.calls.renew).toBe(1)
        // Then one heartbeat after each renew was sent.
        yield* TestClock.adjust(9_999)
        expect(process.calls.renew).toBe(1)
        yield* TestClock.adjust(1)
        expect(process.calls.renew).toBe(2)
        yield* TestClock.adjust(96_000 - firstMs - 10_000)
        yield* Fiber.join(fiber)
        expect(process.calls.renew).toBe(1 + Math.floor((96_000 - firstMs) / 10_000))
        expect(process.calls.release).toBe(1)
        yield* TestClock.adjust("10 minutes")
        expect(process.calls.renew).toBe(1 + Math.floor((96_000 - firstMs) / 10_000))
      }).pipe(withFixedRandom([draw])))
  }

  it.effect("leases acquired at the same instant do not all renew at the same instant", () =>
    Effect.gen(function*() {
      const sentAt: Array<number> = []
      const store = LockStore.intercept(sharedMemory(), (operation, call) =>
        operation === "renew"
          ? Effect.andThen(Effect.flatMap(Clock.currentTimeMillis, (t) => Effect.sync(() => sentAt.push(t))), call)
          : call)
      yield* Effect.forEach(
        Array.from({ length: 20 }, (_, i) => `burst-${i}`),
        (name) => Lock.acquire(name, { lease: "3 seconds", heartbeat: "1 second" })
      ).pipe(Effect.provideService(LockStore.LockStore, store))
      yield* TestClock.adjust("1 second")
      // Each lease renewed once, within the window, and not all at once.
      expect(sentAt.length).toBe(20)
      for (const t of sentAt) {
        expect(t).toBeGreaterThanOrEqual(500)
        expect(t).toBeLessThanOrEqual(1_000)
      }
      expect(new Set(sentAt).size).toBeGreaterThan(10)
    }).pipe(Effect.scoped, withSeed("burst")))

  it.effect("lease.lost fails with the loss, for a fiber that waited for it and for one that asks afterwards", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      yield* process.hold("renew", "before")
      const acquired = yield* Deferred.make<Lease.Lease>()
      yield* forkChild(
        Effect.scoped(
          Effect.flatMap(
            Lock.acquire("watched", { lease: "30 seconds" }),
            (lease) => Effect.andThen(Deferred.succeed(acquired, lease), Effect.never)
          )
        ).pipe(Effect.provide(process.layer))
      )
      const lease = yield* Deferred.await(acquired)
      const early = yield* forkChild(Effect.flip(lease.lost))
      yield* TestClock.adjust("26999 millis")
      expect(Option.isNone(yield* poll(early))).toBe(true)
      yield* TestClock.adjust("1 millis")
      const before = yield* Fiber.join(early)
      const after = yield* Effect.flip(lease.lost)
      expect(before._tag).toBe("LockLost")
      expect(before.reason).toBe("expired")
      expect(after).toBe(before)
      yield* process.open
    }))

  it.effect("reports at risk before the deadline, then lost; lost never turns back into held", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      yield* process.hold("renew", "before")
      const acquired = yield* Deferred.make<Lease.Lease>()
      // Lock.acquire interrupts the fiber that acquired when the lease is lost, so hold it in a fiber of its own.
      const holder = yield* forkChild(
        Effect.scoped(
          Effect.flatMap(
            Lock.acquire("hang", { lease: "30 seconds" }),
            (lease) => Effect.andThen(Deferred.succeed(acquired, lease), Effect.never)
          )
        ).pipe(Effect.provide(process.layer))
      )
      const lease = yield* Deferred.await(acquired)
      const statuses: Array<string> = []
      yield* forkChild(lease.changes.pipe(Stream.runForEach((s) => Effect.sync(() => statuses.push(s._tag)))))
      yield* settle
      // deadline = 27 s (lease - lease/10); at risk when less than warnAt = 10 s is left, from 17 s
      yield* TestClock.adjust("16999 millis")
      expect((yield* lease.status)._tag).toBe("Held")
      yield* TestClock.adjust("1 millis")
      expect((yield* lease.status)._tag).toBe("AtRisk")
      yield* TestClock.adjust("10 seconds")
      const status = yield* lease.status
      expect(status._tag).toBe("Lost")
      if (status._tag === "Lost") expect(status.error.reason).toBe("expired")
      // The fiber that acquired was interrupted by the loss.
      const exit = yield* Fiber.await(holder)
      expect(hasInterrupts(exit)).toBe(true)
      // The store answers again: a late renew must not revive the lease.
      yield* process.open
      yield* TestClock.adjust("1 minute")
      expect((yield* lease.status)._tag).toBe("Lost")
      expect(yield* lease.isHeld).toBe(false)
      yield* settle
      expect(statuses).toEqual(["Held", "AtRisk", "Lost"])
    }))

  it.effect("loss by expiry: withLock interrupts the section at the deadline and fails with LockLost", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      let interruptedAt: number | undefined
      const section = Effect.never.pipe(Effect.onInterrupt(() => Effect.map(now, (t) => interruptedAt = t)))
      yield* process.hold("renew", "before")
      const fiber = yield* forkChild(
        Lock.withLock("hang", section, { lease: "30 seconds" }).pipe(Effect.provide(process.layer))
      )
      // lease 30 s - safety margin 3 s = deadline at 27 s
      yield* TestClock.adjust("26999 millis")
      expect(Option.isNone(yield* poll(fiber))).toBe(true)
      yield* TestClock.adjust("1 millis")
      const exit = yield* Fiber.await(fiber)
      expect(interruptedAt).toBe(27_000)
      expect(Exit.isFailure(exit)).toBe(true)
      const error = yield* Effect.flip(exit)
      expect(error._tag).toBe("LockLost")
      if (error._tag === "LockLost") expect(error.reason).toBe("expired")
      yield* process.open
    }))
})
