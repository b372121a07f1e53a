import { describe, expect, it } from "@effect/vitest"
import { Lock, type LockError, LockStore, Semaphore, SemaphoreRecord, SemaphoreStore } from "@leasehold/lock"
import { Clock, Effect, Exit, Fiber, Layer, Option } from "effect"
import { forkChild, poll, reasons, TestClock } from "./effectLine.js"
import { noCalls, outcome, probe, settle, sharedMemory, withClockOffset } from "./support.js"

const record = (store: LockStore.LockStore, name: string) => Effect.map(store.inspectSemaphore(name), Option.getOrThrow)

/** A holder that wrote its permits and died: no heartbeat, no release. */
const deadHolder = (store: LockStore.LockStore, name: string, limit: number, permits: number, leaseMs: number) =>
  Effect.flatMap(
    store.tryAcquirePermits({
      name,
      owner: "dead",
      holder: "crashed",
      limit,
      permits,
      leaseMs,
      data: undefined,
      takeover: { _tag: "Absolute", maxClockSkewMs: 0 },
      expired: [],
      create: true
    }),
    (result) => result._tag === "Acquired" ? Effect.succeed(result.record) : Effect.die(result._tag)
  )

describe("Semaphore: permits and fences", () => {
  it.effect("permits up to the limit are held at once, each acquisition with a greater fence", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const [a, b] = yield* Effect.all([probe(shared), probe(shared)])
      const two = yield* Semaphore.acquire("pool", { limit: 3, permits: 2 }).pipe(Effect.provide(a.layer))
      const one = yield* Semaphore.acquire("pool", { limit: 3 }).pipe(Effect.provide(b.layer))
      expect([two.permits, one.permits, one.limit]).toEqual([2, 1, 3])
      expect(one.fence).toBeGreaterThan(two.fence)
      const full = yield* Effect.flip(Semaphore.acquire("pool", { limit: 3 }).pipe(Effect.provide(b.layer)))
      expect(full._tag).toBe("LockNotAcquired")
      if (full._tag !== "LockNotAcquired") return
      expect(full.permits).toEqual({ wanted: 1, limit: 3, used: 3, holders: 2 })
      expect(full.message).toContain(`semaphore "pool" has no 1 free of its 3 permits`)
      const stored = yield* record(shared, "pool")
      expect(stored.holders.map((holder) => [holder.owner, holder.permits])).toEqual([[two.owner, 2], [one.owner, 1]])
    }).pipe(Effect.scoped))

  it.effect("withPermits gives the permits back when the section ends, in both forms", () =>
    Effect.gen(function*() {
      const a = yield* probe(sharedMemory())
      const inside = Effect.flatMap(
        Semaphore.inspect("jobs"),
        (stored) => Effect.succeed(Option.getOrThrow(stored).used)
      )
      const dataFirst = yield* Semaphore.withPermits("jobs", inside, { limit: 2, permits: 2 }).pipe(
        Effect.provide(a.layer)
      )
      const piped = yield* inside.pipe(Semaphore.withPermits("jobs", { limit: 2 }), Effect.provide(a.layer))
      expect([dataFirst, piped]).toEqual([2, 1])
      expect((yield* record(a.service, "jobs")).used).toBe(0)
      expect((yield* record(a.service, "jobs")).holders).toEqual([])
    }))

  it.effect("an uncontended cycle on an existing semaphore is one acquiring write and one release, no read", () =>
    Effect.gen(function*() {
      const a = yield* probe(sharedMemory())
      const cycle = Semaphore.withPermits("cycle", Effect.void, { limit: 4 }).pipe(Effect.provide(a.layer))
      // The first acquisition ever finds no record, and creates it with a second attempt.
      yield* cycle
      expect(a.calls).toEqual({ ...noCalls(), tryAcquirePermits: 2, releasePermits: 1 })
      yield* cycle
      expect(a.calls).toEqual({ ...noCalls(), tryAcquirePermits: 3, releasePermits: 2 })
    }))

  it.effect("a limit other than the record's is SemaphoreLimitMismatch, and changes nothing", () =>
    Effect.gen(function*() {
      const a = yield* probe(sharedMemory())
      yield* Semaphore.acquire("fixed", { limit: 2 }).pipe(Effect.provide(a.layer))
      const before = yield* record(a.service, "fixed")
      const error = yield* Effect.flip(Semaphore.acquire("fixed", { limit: 5 }).pipe(Effect.provide(a.layer)))
      expect(error._tag).toBe("SemaphoreLimitMismatch")
      if (error._tag !== "SemaphoreLimitMismatch") return
      expect([error.name, error.limit, error.storedLimit]).toEqual(["fixed", 5, 2])
      expect(error.message).toContain("every process that shares the name must use the same limit")
      expect(yield* record(a.service, "fixed")).toEqual(before)
      // Nothing to give back: no write of it applied.
      expect(a.calls.releasePermits).toBe(0)
    }).pipe(Effect.scoped))

  it.effect("permits are not re-entrant: a fiber that asks again is another holder", () =>
    Effect.gen(function*() {
      const a = yield* probe(sharedMemory())
      const outer = yield* Semaphore.acquire("nested", { limit: 2 }).pipe(Effect.provide(a.layer))
      const inner = yield* Semaphore.acquire("nested", { limit: 2 }).pipe(Effect.provide(a.layer))
      expect(inner.owner).not.toBe(outer.owner)
      expect((yield* record(a.service, "nested")).used).toBe(2)
      // So a third, in the same fiber, waits like anyone's.
      const third = yield* Effect.flip(Semaphore.acquire("nested", { limit: 2 }).pipe(Effect.provide(a.layer)))
      expect(third._tag).toBe("LockNotAcquired")
    }).pipe(Effect.scoped))

  it.effect("a semaphore and a lock of the same name are apart", () =>
    Effect.gen(function*() {
      const a = yield* probe(sharedMemory())
      const permits = yield* Semaphore.acquire("shared-name", { limit: 1 }).pipe(Effect.provide(a.layer))
      const lease = yield* Lock.acquire("shared-name").pipe(Effect.provide(a.layer))
      // Both held at once: neither record knows of the other's holder.
      expect(yield* permits.isHeld).toBe(true)
      expect(Option.getOrThrow(yield* a.service.inspect("shared-name")).owner).toBe(lease.owner)
      expect((yield* record(a.service, "shared-name")).holders.map((holder) => holder.owner)).toEqual([permits.owner])
    }).pipe(Effect.scoped))
})

describe("Semaphore: waiting and takeover", () => {
  it.effect("a waiter gets the permits a holder gives back, within a poll interval", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const [a, b] = yield* Effect.all([probe(shared), probe(shared)])
      const options = { limit: 1, lease: "10 seconds", wait: "forever" } as const
      const first = yield* forkChild(
        Semaphore.withPermits("one-slot", Effect.sleep("5 seconds"), options).pipe(Effect.provide(a.layer))
      )
      yield* settle
      let enteredAt: number | undefined
      const second = yield* forkChild(
        Semaphore.withPermits(
          "one-slot",
          Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => enteredAt = now)),
          options
        ).pipe(Effect.provide(b.layer))
      )
      yield* settle
      for (let step = 0; step < 7; step++) yield* TestClock.adjust(1_000)
      yield* Fiber.join(first)
      yield* Fiber.join(second)
      // Not before the holder gave the permit back at 5 s (a poll may land in that same instant, after the release),
      // and within one poll interval after it: the waiter polls at most every lease / 10.
      expect(enteredAt).toBeGreaterThanOrEqual(5_000)
      expect(enteredAt).toBeLessThanOrEqual(6_000)
      // Two acquisitions, one fence each, and nobody left holding.
      const stored = yield* record(shared, "one-slot")
      expect([stored.fence, stored.used]).toEqual([2, 0])
    }))

  it.effect("a dead holder's permits are taken over after leaseUntil + maxClockSkew, in the acquiring write", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const dead = yield* deadHolder(shared, "crashed-pool", 2, 2, 10_000)
      const a = yield* probe(shared)
      const acquiring = yield* forkChild(
        Semaphore.acquire("crashed-pool", { limit: 2, wait: "forever", maxClockSkew: "2 seconds" }).pipe(
          Effect.provide(a.layer)
        )
      )
      yield* settle
      yield* TestClock.adjust(11_999)
      expect(Option.isNone(yield* poll(acquiring))).toBe(true)
      const writesBefore = a.calls.tryAcquirePermits
      yield* TestClock.adjust(1_000)
      const permits = yield* Fiber.join(acquiring)
      expect(permits.fence).toBeGreaterThan(dead.fence)
      // One conflict that shows the holder over, then the write that removes it and acquires.
      expect(a.calls.tryAcquirePermits - writesBefore).toBeLessThanOrEqual(2)
      const stored = yield* record(shared, "crashed-pool")
      expect(stored.holders.map((holder) => holder.owner)).toEqual([permits.owner])
      expect(stored.used).toBe(1)
    }).pipe(Lock.scoped))

  it.effect("observed takeover waits a full lease of an unchanged holder on its own clock, whatever leaseUntil says", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      // A holder whose wall clock runs an hour ahead: its leaseUntil says it is alive for an hour more.
      yield* deadHolder(shared, "observed-pool", 1, 1, 10_000).pipe(withClockOffset(3_600_000))
      const a = yield* probe(shared)
      const acquiring = yield* forkChild(
        Semaphore.acquire("observed-pool", { limit: 1, wait: "forever", takeover: "observed" }).pipe(
          Effect.provide(a.layer)
        )
      )
      yield* settle
      yield* TestClock.adjust(9_999)
      expect(Option.isNone(yield* poll(acquiring))).toBe(true)
      yield* TestClock.adjust(1_001)
      const permits = yield* Fiber.join(acquiring)
      expect((yield* record(shared, "observed-pool")).holders.map((holder) => holder.owner)).toEqual([permits.owner])
    }).pipe(Lock.scoped))

  it.effect("with no wait, a full semaphore fails after one attempt", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      yield* deadHolder(shared, "busy", 1, 1, 60_000)
      const a = yield* probe(shared)
      const error = yield* Effect.flip(Semaphore.acquire("busy", { limit: 1 }).pipe(Effect.provide(a.layer)))
      expect(error._tag).toBe("LockNotAcquired")
      expect(a.calls.tryAcquirePermits).toBe(1)
    }).pipe(Effect.scoped))

  it.effect("an acquire that fails on a store error gives back, by owner, whatever it may have written", () =>
    Effect.gen(function*() {
      const a = yield* probe(sharedMemory())
      a.failing("tryAcquirePermits", true)
      const error = yield* Effect.flip(Semaphore.acquire("flaky", { limit: 1 }).pipe(Effect.provide(a.layer)))
      expect(error._tag).toBe("LockStoreError")
      expect(a.calls.releasePermits).toBe(1)
    }).pipe(Effect.scoped))

  it.effect("an entry answered too late and not given back is never taken for a fresh one", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const [a, b] = yield* Effect.all([probe(shared), probe(shared)])
      const options = { limit: 1, lease: "2 seconds", maxClockSkew: "1 second", wait: "forever" } as const
      // The record exists, so that a's first attempt acquires.
      yield* Semaphore.withPermits("late", Effect.void, options).pipe(Effect.provide(b.layer))
      let running = 0
      let most = 0
      const section = Effect.acquireUseRelease(
        Effect.sync(() => most = Math.max(most, ++running)),
        () => Effect.sleep("1200 millis"),
        () => Effect.sync(() => running--)
      )
      // a's acquiring write applies, but its answer comes after the lease it set is over; giving it back fails.
      yield* a.hold("tryAcquirePermits", "after")
      a.failing("releasePermits", true)
      const first = yield* forkChild(
        Semaphore.withPermits("late", section, options).pipe(Effect.provide(a.layer), outcome)
      )
      yield* a.held
      const second = yield* forkChild(
        Effect.andThen(Effect.sleep("2 seconds"), Semaphore.withPermits("late", section, options)).pipe(
          Effect.provide(b.layer)
        )
      )
      yield* TestClock.adjust("2500 millis")
      yield* a.open
      for (let step = 0; step < 100; step++) yield* TestClock.adjust("100 millis")
      a.failing("releasePermits", false)
      yield* Fiber.join(second)
      // a's stale entry was removed by b's takeover; a may still be waiting, but never ran beside b.
      expect(most).toBe(1)
      yield* Fiber.interrupt(first)
    }))

  it.effect("an interrupted wait leaves nothing held", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      yield* deadHolder(shared, "interrupted", 1, 1, 60_000)
      const a = yield* probe(shared)
      const waiting = yield* forkChild(
        Semaphore.acquire("interrupted", { limit: 1, wait: "forever" }).pipe(Effect.provide(a.layer))
      )
      yield* settle
      yield* TestClock.adjust(3_000)
      yield* Fiber.interrupt(waiting)
      expect((yield* record(shared, "interrupted")).holders.map((holder) => holder.owner)).toEqual(["dead"])
    }).pipe(Effect.scoped))
})

describe("Semaphore: input", () => {
  const refused: ReadonlyArray<readonly [string, string, Semaphore.SemaphoreOptions]> = [
    ["an empty name", "", { limit: 1 }],
    ["a limit of 0", "x", { limit: 0 }],
    ["a limit over the most", "x", { limit: SemaphoreRecord.maxLimit + 1 }],
    ["a fractional limit", "x", { limit: 1.5 }],
    ["no permits", "x", { limit: 2, permits: 0 }],
    ["more permits than the limit", "x", { limit: 2, permits: 3 }],
    ["data over a holder's budget", "x", { limit: 2, data: "d".repeat(SemaphoreRecord.maxDataBytes + 1) }],
    ["a heartbeat as long as the lease", "x", { limit: 2, lease: "1 second", heartbeat: "1 second" }]
  ]
  for (const [what, name, options] of refused) {
    it.effect(`${what} is LockConfigError before any store call`, () =>
      Effect.gen(function*() {
        const a = yield* probe(sharedMemory())
        const exit = yield* Effect.exit(Semaphore.acquire(name, options).pipe(Effect.provide(a.layer)))
        // One failure and nothing else: no defect, no interruption.
        const all = Exit.isFailure(exit) ? reasons(exit.cause) : []
        expect(all.length === 1 && all[0]!._tag === "Fail" && all[0]!.error._tag).toBe("LockConfigError")
        expect(a.calls).toEqual(noCalls())
      }).pipe(Effect.scoped))
  }

  it.effect("each problem names its option, and a name one byte over a semaphore's budget is refused", () =>
    Effect.gen(function*() {
      const a = yield* probe(sharedMemory())
      const optionOf = (name: string, options: Semaphore.SemaphoreOptions) =>
        Effect.map(
          Effect.flip(Semaphore.acquire(name, options).pipe(Effect.provide(a.layer))),
          (error) => error._tag === "LockConfigError" ? error.option : error._tag
        )
      expect(yield* optionOf("x", { limit: 0 })).toBe("limit")
      expect(yield* optionOf("x", { limit: 2, permits: 3 })).toBe("permits")
      expect(yield* optionOf("x", { limit: 2, data: "d".repeat(2_000) })).toBe("data")
      const longest = SemaphoreStore.maxNameBytes(a.service)
      expect(yield* optionOf("n".repeat(longest + 1), { limit: 1 })).toBe("name")
      const fits = yield* Semaphore.acquire("n".repeat(longest), { limit: 1 }).pipe(Effect.provide(a.layer))
      expect(fits.name.length).toBe(longest)
    }).pipe(Effect.scoped))

  it.effect("app-wide defaults are checked as a semaphore's: data over a holder's budget, a lease the store refuses", () =>
    Effect.gen(function*() {
      const a = yield* probe(sharedMemory())
      // A store that can keep a semaphore holder's lease only under a minute, as a DynamoDB table whose ttlRetention
      // is a minute can.
      const store: LockStore.LockStore = {
        ...a.service,
        semaphoreLeaseProblem: ({ leaseMs, takeover }) => {
          const skewMs = takeover._tag === "Absolute" ? takeover.maxClockSkewMs : 0
          return leaseMs + skewMs < 60_000 ? undefined : `a lease of ${leaseMs} ms and ${skewMs} ms of skew: too long`
        }
      }
      const failureOf = (defaults: Lock.LockOptions, options: Semaphore.SemaphoreOptions) =>
        Effect.gen(function*() {
          const layer = Layer.merge(Layer.succeed(LockStore.LockStore, store), Lock.layerDefaults(defaults))
          // Tag, option and message only: a store's error carries more than can be compared.
          const summary = (error: { readonly _tag: string; readonly message: string }) => ({
            _tag: error._tag,
            option: error._tag === "LockConfigError" ? (error as LockError.LockConfigError).option : undefined,
            message: error.message
          })
          const acquired = yield* Effect.flip(Semaphore.acquire("jobs", options).pipe(Effect.provide(layer)))
          const wrapped = yield* Effect.flip(
            Semaphore.withPermits("jobs", Effect.void, options).pipe(Effect.provide(layer))
          )
          expect(summary(wrapped)).toEqual(summary(acquired))
          return summary(acquired)
        })
      /** App-wide defaults, and the call's options. */
      type Case = readonly [Lock.LockOptions, Semaphore.SemaphoreOptions]
      const tooMuchData = "d".repeat(SemaphoreRecord.maxDataBytes + 1)
      const dataCases: ReadonlyArray<Case> = [[{ data: tooMuchData }, { limit: 2 }], [{}, {
        limit: 2,
        data: tooMuchData
      }]]
      for (const [defaults, options] of dataCases) {
        const error = yield* failureOf(defaults, options)
        expect(error).toMatchObject({ _tag: "LockConfigError", option: "data" })
        expect(error.message).toContain(`over a semaphore holder's limit of ${SemaphoreRecord.maxDataBytes}`)
      }
      expect((yield* failureOf({ data: tooMuchData }, { limit: 2 })).message).toContain("app-wide default")
      // A holder name is checked as resolved already, as a lock's.
      expect(yield* failureOf({ holder: "h".repeat(1025) }, { limit: 2 })).toMatchObject({ option: "holder" })
      const leaseCases: ReadonlyArray<Case> = [[{ lease: "55 seconds" }, { limit: 2 }], [{}, {
        limit: 2,
        lease: "55 seconds"
      }]]
      for (const [defaults, options] of leaseCases) {
        const error = yield* failureOf(defaults, options)
        expect(error).toMatchObject({ _tag: "LockConfigError", option: "lease" })
        expect(error.message).toContain("a lease of 55000 ms and 10000 ms of skew: too long")
      }
      expect(a.calls).toEqual(noCalls())
      // Within the bounds, the defaults are what the holder gets: a lease the store keeps, and the data.
      const layer = Layer.merge(
        Layer.succeed(LockStore.LockStore, store),
        Lock.layerDefaults({
          lease: "55 seconds",
          maxClockSkew: "1 second",
          data: "d".repeat(SemaphoreRecord.maxDataBytes)
        })
      )
      const permits = yield* Semaphore.acquire("jobs", { limit: 2 }).pipe(Effect.provide(layer))
      expect(permits.data).toBe("d".repeat(SemaphoreRecord.maxDataBytes))
      expect(permits.record.leaseMs).toBe(55_000)
    }).pipe(Effect.scoped))

  it.effect("a process without options is told that a semaphore needs its limit", () =>
    Effect.gen(function*() {
      const a = yield* probe(sharedMemory())
      const error = yield* Effect.flip(
        Semaphore.acquire("x", undefined as unknown as Semaphore.SemaphoreOptions).pipe(Effect.provide(a.layer))
      )
      expect(error._tag === "LockConfigError" && error.option).toBe("limit")
      expect(a.calls).toEqual(noCalls())
    }).pipe(Effect.scoped))
})
