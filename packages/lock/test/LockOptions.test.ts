import { describe, expect, it } from "@effect/vitest"
import { Lock, LockStore } from "@leasehold/lock"
import { Effect, Fiber, Layer, Option } from "effect"
import { forkChild, fromEnvRecord, metricStates, TestClock, withConfigProvider, withFixedRandom } from "./effectLine.js"
import { probe, recordingTracer, sharedMemory } from "./support.js"

describe("Lock options", () => {
  const invalid: ReadonlyArray<[string, string, Lock.LockOptions]> = [
    ["lease", "zero lease", { lease: 0 }],
    ["lease", "negative lease", { lease: -5 }],
    ["lease", "infinite lease", { lease: Infinity }],
    ["lease", "unparseable lease", { lease: "thirty seconds" as any }],
    ["heartbeat", "zero heartbeat", { heartbeat: "0 millis" }],
    ["heartbeat", "heartbeat equal to the lease", { lease: "10 seconds", heartbeat: "10 seconds" }],
    ["heartbeat", "heartbeat longer than the lease", { lease: "10 seconds", heartbeat: "11 seconds" }],
    ["heartbeat", "heartbeat that leaves no room for the margin", { lease: "10 seconds", heartbeat: "9500 millis" }],
    ["warnAt", "warnAt equal to the lease", { lease: "10 seconds", warnAt: "10 seconds" }],
    ["safetyMargin", "safetyMargin equal to the lease", { lease: "10 seconds", safetyMargin: "10 seconds" }],
    ["wait", "negative wait", { wait: -1 }],
    ["wait", "infinite wait (use \"forever\")", { wait: Infinity }],
    ["maxClockSkew", "negative skew", { maxClockSkew: -1 }],
    ["pollInterval", "zero poll interval", { pollInterval: 0 }],
    ["takeover", "unknown takeover mode", { takeover: "optimistic" as any }],
    ["holder", "empty holder", { holder: "" }],
    ["data", "non-string data", { data: 42 as any }]
  ]
  for (const [option, label, options] of invalid) {
    it.effect(`rejects ${label} with LockConfigError before any store call`, () =>
      Effect.gen(function*() {
        const process = yield* probe(sharedMemory())
        const error = yield* Effect.flip(Lock.withLock("x", Effect.void, options).pipe(Effect.provide(process.layer)))
        expect(error._tag).toBe("LockConfigError")
        if (error._tag === "LockConfigError") {
          expect(error.option).toBe(option)
          expect(error.message).toContain(option)
        }
        expect(Object.values(process.calls).reduce((a, b) => a + b, 0)).toBe(0)
      }))
  }

  const badNames: ReadonlyArray<[string, unknown]> = [
    ["an empty name", ""],
    ["a name over the store's key budget", "x".repeat(LockStore.memoryMaxNameBytes + 1)],
    ["a multi-byte name over the budget in UTF-8 bytes", "é".repeat(LockStore.memoryMaxNameBytes / 2 + 1)],
    ["a non-string name", 42]
  ]
  for (const [label, name] of badNames) {
    it.effect(`rejects ${label}`, () =>
      Effect.gen(function*() {
        const process = yield* probe(sharedMemory())
        const error = yield* Effect.flip(
          Effect.scoped(Lock.acquire(name as string)).pipe(Effect.provide(process.layer))
        )
        expect(error._tag).toBe("LockConfigError")
        if (error._tag === "LockConfigError") expect(error.option).toBe("name")
        expect(process.calls.tryAcquire).toBe(0)
      }))
  }

  it.effect("accepts a name of exactly the store's key budget", () =>
    Effect.gen(function*() {
      const lease = yield* Effect.scoped(Lock.acquire("é".repeat(LockStore.memoryMaxNameBytes / 2)))
      expect(lease.fence).toBe(1)
    }).pipe(Effect.provide(LockStore.layerMemory)))

  it.effect("validateOptions checks options without acquiring", () =>
    Effect.gen(function*() {
      yield* Lock.validateOptions({ lease: "5 seconds" })
      const error = yield* Effect.flip(Lock.validateOptions({ lease: "5 seconds", heartbeat: "6 seconds" }))
      expect(error.option).toBe("heartbeat")
    }))

  it.effect("app-wide defaults from a layer apply, and per-call options override them", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      const layer = Layer.merge(process.layer, Lock.layerDefaults({ lease: "6 seconds", holder: "app" }))
      const fiber = yield* forkChild(
        Effect.scoped(
          Effect.gen(function*() {
            const lease = yield* Lock.acquire("defaults")
            yield* Effect.sleep("5 seconds")
            return lease
          })
        ).pipe(Effect.provide(layer))
      )
      // lease 6 s -> heartbeat 2 s -> renews at 2 s and 4 s (the first at the latest point it may go: see below)
      yield* TestClock.adjust("5 seconds")
      const lease = yield* Fiber.join(fiber)
      expect(lease.holder).toBe("app")
      expect(lease.record.leaseMs).toBe(6000)
      expect(process.calls.renew).toBe(2)
      const overridden = yield* Effect.scoped(Lock.acquire("defaults", { lease: "9 seconds" })).pipe(
        Effect.provide(layer)
      )
      expect(overridden.record.leaseMs).toBe(9000)
      expect(overridden.holder).toBe("app")
    }).pipe(withFixedRandom([0])))

  it.effect("per-call options take their values at each call, whether the object is new or reused and changed", () =>
    Effect.gen(function*() {
      const leaseOf = (options: Lock.LockOptions) =>
        Effect.map(Effect.scoped(Lock.acquire("per-call", options)), (lease) => lease.record.leaseMs)
      expect(yield* leaseOf({ lease: "7 seconds" })).toBe(7000)
      expect(yield* leaseOf({ lease: "7 seconds" })).toBe(7000)
      const reused: { lease: Lock.LockOptions["lease"]; holder?: string } = { lease: "7 seconds" }
      expect(yield* leaseOf(reused)).toBe(7000)
      reused.lease = "8 seconds"
      expect(yield* leaseOf(reused)).toBe(8000)
      reused.holder = "changed"
      const lease = yield* Effect.scoped(Lock.acquire("per-call", reused))
      expect(lease.holder).toBe("changed")
      // A duration of a mutable form is read at each call too.
      const tuple: [number, number] = [9, 0]
      expect(yield* leaseOf({ lease: tuple })).toBe(9000)
      tuple[0] = 10
      expect(yield* leaseOf({ lease: tuple })).toBe(10_000)
      const refused = yield* Effect.flip(leaseOf({ lease: "10 seconds", heartbeat: "10 seconds" }))
      expect(refused._tag).toBe("LockConfigError")
    }).pipe(Effect.provide(LockStore.layerMemory)))

  it.effect("app-wide defaults from Config", () =>
    Effect.gen(function*() {
      const provider = fromEnvRecord({
        LEASEHOLD_LEASE: "12 seconds",
        LEASEHOLD_WAIT: "forever",
        LEASEHOLD_HOLDER: "cfg"
      })
      const defaults = yield* Lock.defaultsConfig.pipe(withConfigProvider(provider))
      expect(defaults.holder).toBe("cfg")
      expect(defaults.wait).toBe("forever")
      expect(defaults.heartbeat).toBeUndefined()
      const lease = yield* Effect.scoped(Lock.acquire("configured")).pipe(
        Effect.provide(Layer.merge(LockStore.layerMemory, Lock.layerDefaults(defaults)))
      )
      expect(lease.record.leaseMs).toBe(12_000)
    }))
})

describe("Lock observability", () => {
  it.effect("acquire, renew and release are spans with the lock name, owner and fence", () =>
    Effect.gen(function*() {
      const { spans, tracer } = recordingTracer()
      const fiber = yield* forkChild(
        Lock.withLock("traced", Effect.sleep("15 seconds")).pipe(
          Effect.provide(LockStore.layerMemory),
          Effect.withTracer(tracer)
        )
      )
      yield* TestClock.adjust("15 seconds")
      yield* Fiber.join(fiber)
      const byName = (name: string) => spans.filter((span) => span.name === name)
      const acquire = byName("Lock.acquire")[0]!
      expect(acquire.attributes.get("lock.name")).toBe("traced")
      expect(acquire.attributes.get("lock.fence")).toBe(1)
      const owner = acquire.attributes.get("lock.owner")
      expect(typeof owner).toBe("string")
      expect(byName("Lock.renew").length).toBe(1)
      expect(byName("Lock.renew")[0]!.attributes.get("lock.owner")).toBe(owner)
      // A renew is a child of the acquire that took the lease.
      expect(byName("Lock.renew")[0]!.parent).toMatchObject(Option.some({ spanId: acquire.spanId, traceId: "trace" }))
      expect(byName("Lock.release")[0]!.attributes.get("lock.fence")).toBe(1)
    }).pipe(withFixedRandom([0])))

  it.effect("metrics count acquisitions, conflicts and losses", () =>
    Effect.gen(function*() {
      const counter = (name: string) =>
        Effect.map(metricStates(name), (states) =>
          states.reduce((sum, state) => sum + Number((state as any).count ?? 0), 0))
      const before = {
        acquired: yield* counter("leasehold_lock_acquisitions_total"),
        conflicts: yield* counter("leasehold_lock_conflicts_total"),
        notAcquired: yield* counter("leasehold_lock_not_acquired_total")
      }
      const backing = sharedMemory()
      const [a, b] = yield* Effect.all([probe(backing), probe(backing)])
      yield* Effect.scoped(
        Effect.gen(function*() {
          yield* Lock.acquire("metered").pipe(Effect.provide(a.layer))
          yield* Effect.flip(Lock.withLock("metered", Effect.void).pipe(Effect.provide(b.layer)))
        })
      )
      expect((yield* counter("leasehold_lock_acquisitions_total")) - before.acquired).toBe(1)
      expect((yield* counter("leasehold_lock_conflicts_total")) - before.conflicts).toBe(1)
      expect((yield* counter("leasehold_lock_not_acquired_total")) - before.notAcquired).toBe(1)
      expect(Option.isSome(yield* backing.inspect("metered"))).toBe(true)
    }))
})
