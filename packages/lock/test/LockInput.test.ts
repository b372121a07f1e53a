import { describe, expect, it } from "@effect/vitest"
import { LeaderElection, Lock, LockRecord, LockStore, Semaphore, TypedLock } from "@leasehold/lock"
import { Clock, Duration, Effect, Exit, Fiber, Layer, Option, Schema, Stream } from "effect"
import {
  type DurationInput,
  forkChild,
  fromEnvRecord,
  makeClock,
  monotonicTimeNanosUnsafe,
  poll,
  TestClock,
  withClock,
  withConfigProvider
} from "./effectLine.js"
import { probe, settle, sharedMemory } from "./support.js"

const configError = (options: Lock.LockOptions) =>
  Effect.gen(function*() {
    const process = yield* probe(sharedMemory())
    const error = yield* Effect.flip(Lock.withLock("x", Effect.void, options).pipe(Effect.provide(process.layer)))
    expect(Object.values(process.calls).reduce((a, b) => a + b, 0)).toBe(0)
    return error
  })

describe("durations that are not finite, non-negative milliseconds are refused", () => {
  // Effect's own decoding makes each of these a zero duration, which these options would accept.
  const bad: ReadonlyArray<readonly [string, DurationInput]> = [
    ["NaN", NaN],
    ["a negative string", "-10 seconds"],
    ["a negative Duration", Duration.millis(-10_000)],
    ["a NaN Duration", Duration.millis(NaN)],
    ["a negative bigint (nanoseconds)", -5n],
    ["a NaN tuple", [NaN, 0]],
    ["a negative tuple", [-1, 0]],
    ["Infinity", Infinity]
  ]
  for (const option of ["maxClockSkew", "safetyMargin", "warnAt", "wait"] as const) {
    for (const [label, value] of bad) {
      it.effect(`${option}: ${label}`, () =>
        Effect.gen(function*() {
          const error = yield* configError({ [option]: value })
          expect(error).toMatchObject({ _tag: "LockConfigError", option })
          expect(error.message).toContain("finite, non-negative")
        }))
    }
  }

  it.effect("zero written as 0, \"0 millis\" or Duration.zero is zero", () =>
    Effect.gen(function*() {
      for (const zero of [0, "0 millis", Duration.zero] as const) {
        yield* Lock.validateOptions({ maxClockSkew: zero, wait: zero, warnAt: zero, safetyMargin: zero })
      }
    }))

  it.effect("a duration under 1 ms where zero is not allowed: the message says durations are whole milliseconds", () =>
    Effect.gen(function*() {
      const error = yield* configError({ heartbeat: "400 micros" })
      expect(error).toMatchObject({ _tag: "LockConfigError", option: "heartbeat" })
      expect(error.message).toContain("whole milliseconds")
    }))

  it.effect("maxClockSkew NaN does not take over a dead holder's lock at its leaseUntil", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      yield* backing.tryAcquire({
        name: "x",
        owner: "dead",
        holder: "crashed",
        leaseMs: 1_000,
        data: undefined,
        takeover: { _tag: "Absolute", maxClockSkewMs: 0 }
      })
      yield* TestClock.adjust("1001 millis")
      const error = yield* configError({ maxClockSkew: Number(undefined) })
      expect(error._tag).toBe("LockConfigError")
      expect(Option.getOrThrow(yield* backing.inspect("x")).owner).toBe("dead")
    }))

  it.effect("durations over the platform's timer limit (about 24.8 days) are refused", () =>
    Effect.gen(function*() {
      const error = yield* configError({ lease: "75 days" })
      expect(error).toMatchObject({ _tag: "LockConfigError", option: "lease" })
      expect(error.message).toContain("24.8 days")
      yield* Lock.validateOptions({ lease: "20 days" })
    }))

  it.effect("LEASEHOLD_* values are checked the same way, when the layer is built", () =>
    Effect.gen(function*() {
      for (const [key, value] of [["LEASEHOLD_MAX_CLOCK_SKEW", "-10 seconds"], ["LEASEHOLD_LEASE", "75 days"]]) {
        const provider = fromEnvRecord({ [key!]: value! })
        const exit = yield* Effect.exit(
          Layer.build(Lock.layerDefaultsConfig).pipe(Effect.scoped, withConfigProvider(provider))
        )
        expect(Exit.isFailure(exit)).toBe(true)
        if (Exit.isFailure(exit)) expect(String(exit.cause)).toContain("LockConfigError")
      }
      const good = fromEnvRecord({ LEASEHOLD_MAX_CLOCK_SKEW: "0 millis" })
      const defaults = yield* Lock.defaultsConfig.pipe(withConfigProvider(good))
      yield* Lock.validateOptions(defaults)
    }))
})

describe("options are resolved from what was passed", () => {
  it.effect("an option set to undefined keeps the app-wide default", () =>
    Effect.gen(function*() {
      const lease = yield* Effect.scoped(Lock.acquire("x", { lease: undefined, holder: undefined })).pipe(
        Effect.provide(Layer.merge(LockStore.layerMemory, Lock.layerDefaults({ lease: "6 seconds", holder: "app" })))
      )
      expect(lease.record.leaseMs).toBe(6_000)
      expect(lease.holder).toBe("app")
    }))

  it.effect("a reused options object is read again on every call", () =>
    Effect.gen(function*() {
      const options: { data?: string; lease?: DurationInput } = { data: "job-1", lease: "5 seconds" }
      const first = yield* Effect.scoped(Lock.acquire("x", options))
      options.data = "job-2"
      options.lease = "7 seconds"
      const second = yield* Effect.scoped(Lock.acquire("x", options))
      expect([first.data, second.data]).toEqual(["job-1", "job-2"])
      expect(second.record.leaseMs).toBe(7_000)
    }).pipe(Effect.provide(LockStore.layerMemory)))
})

describe("warnAt is measured against the local deadline", () => {
  it.effect("warnAt at or past lease - safetyMargin is refused", () =>
    Effect.gen(function*() {
      const error = yield* configError({ lease: "10 seconds", safetyMargin: "1 second", warnAt: "9500 millis" })
      expect(error).toMatchObject({ _tag: "LockConfigError", option: "warnAt" })
      expect(error.message).toContain("lease minus safetyMargin")
    }))

  it.effect("the default warnAt stays inside a large safetyMargin, and a fresh lease is Held", () =>
    Effect.gen(function*() {
      const status = yield* Effect.scoped(Effect.gen(function*() {
        const lease = yield* Lock.acquire("x", {
          lease: "10 seconds",
          safetyMargin: "8 seconds",
          heartbeat: "1 second"
        })
        yield* settle
        return yield* lease.status
      }))
      expect(status).toEqual({ _tag: "Held" })
    }).pipe(Effect.provide(LockStore.layerMemory)))
})

describe("names and data are what DynamoDB can store", () => {
  for (const name of ["orders/ab\uD83D", "orders/ab\uDC00"]) {
    it.effect(`a name with a lone surrogate is refused: ${JSON.stringify(name)}`, () =>
      Effect.gen(function*() {
        const process = yield* probe(sharedMemory())
        const error = yield* Effect.flip(Lock.withLock(name, Effect.void).pipe(Effect.provide(process.layer)))
        expect(error).toMatchObject({ _tag: "LockConfigError", option: "name" })
        expect(error.message).toContain("well-formed")
        expect(process.calls.tryAcquire).toBe(0)
      }))
  }

  it.effect("data over the item limit is refused before any store call, with the limit in the message", () =>
    Effect.gen(function*() {
      const error = yield* configError({ data: "x".repeat(LockRecord.maxDataBytes + 1) })
      expect(error).toMatchObject({ _tag: "LockConfigError", option: "data" })
      expect(error.message).toContain(String(LockRecord.maxDataBytes))
      const lease = yield* Effect.scoped(Lock.acquire("x", { data: "x".repeat(LockRecord.maxDataBytes) })).pipe(
        Effect.provide(LockStore.layerMemory)
      )
      expect(lease.data?.length).toBe(LockRecord.maxDataBytes)
    }))

  it.effect("the memory store refuses what DynamoDB refuses, for direct users", () =>
    Effect.gen(function*() {
      const store = LockStore.makeMemory()
      const request = {
        name: "x",
        owner: "o",
        holder: "h",
        leaseMs: 1_000,
        data: undefined,
        takeover: { _tag: "Absolute", maxClockSkewMs: 0 }
      } as const
      const tooMuch = yield* Effect.flip(
        store.tryAcquire({ ...request, data: "x".repeat(LockRecord.maxDataBytes + 1) })
      )
      expect(tooMuch).toMatchObject({ _tag: "LockStoreError", retryable: false })
      const longName = yield* Effect.flip(
        store.tryAcquire({ ...request, name: "x".repeat(LockStore.memoryMaxNameBytes + 1) })
      )
      expect(longName).toMatchObject({ _tag: "LockStoreError", retryable: false })
      const illFormed = yield* Effect.flip(store.tryAcquire({ ...request, name: "ab\uD83D" }))
      expect(illFormed).toMatchObject({ _tag: "LockStoreError", retryable: false })
      for (const limit of [-1, 0, 1.5, NaN]) {
        expect(yield* Effect.flip(store.list({ limit }))).toMatchObject({ _tag: "LockStoreError", retryable: false })
      }
      expect((yield* store.list({ limit: Infinity })).records).toEqual([])
    }))

  it.effect("a name is checked by the store's own judge wherever it enters, before any store call", () =>
    Effect.gen(function*() {
      // A store whose keys encode "#" longer, as the DynamoDB store's do without a prefix: the names fit maxNameBytes.
      const backing = sharedMemory()
      const process = yield* probe(backing)
      const store: LockStore.LockStore = {
        ...process.service,
        nameProblem: (name) => name.includes("#") ? `lock name ${name} takes too much as a key` : undefined,
        semaphoreNameProblem: (name) =>
          name.includes("#") ? `semaphore name ${name} takes too much as a key` : undefined
      }
      const counter = TypedLock.make(Schema.Number)
      const handoff = {
        _tag: "LeaseHandoff",
        name: "a#b",
        owner: "o".repeat(32),
        fence: 1,
        holder: "elsewhere",
        leaseMs: 10_000,
        leaseUntil: 60_000
      } as const
      const locks: ReadonlyArray<Effect.Effect<unknown, unknown, LockStore.LockStore>> = [
        Effect.scoped(Lock.acquire("a#b")),
        Lock.withLock("a#b", Effect.void),
        Effect.scoped(counter.acquire("a#b", 1)),
        counter.holder("a#b"),
        LeaderElection.run("a#b", () => Effect.void),
        Stream.runDrain(LeaderElection.leader("a#b")),
        Lock.withResumed(handoff, Effect.void)
      ]
      const semaphores: ReadonlyArray<Effect.Effect<unknown, unknown, LockStore.LockStore>> = [
        Effect.scoped(Semaphore.acquire("a#b", { limit: 2 })),
        Semaphore.withPermits("a#b", Effect.void, { limit: 2 }),
        Semaphore.inspect("a#b")
      ]
      for (const [kind, entries] of [["lock", locks], ["semaphore", semaphores]] as const) {
        for (const entry of entries) {
          const error = yield* Effect.flip(Effect.provideService(entry, LockStore.LockStore, store))
          expect(error).toMatchObject({
            _tag: "LockConfigError",
            option: "name",
            message: `${kind} name a#b takes too much as a key`
          })
        }
      }
      expect(Object.values(process.calls).every((n) => n === 0)).toBe(true)
      // The memory store's own judge is the name's UTF-8 length against its budget, a byte less for a semaphore.
      const memory = LockStore.makeMemory({ maxNameBytes: 8 })
      expect(memory.nameProblem("#".repeat(8))).toBeUndefined()
      expect(memory.nameProblem("é".repeat(4) + "#")).toContain("9 UTF-8 bytes, over this store's limit of 8")
      expect(memory.semaphoreNameProblem("#".repeat(7))).toBeUndefined()
      expect(memory.semaphoreNameProblem("#".repeat(8))).toContain("8 UTF-8 bytes, over this store's limit of 7")
      expect(memory.nameProblem("")).toContain("must not be empty")
      expect(memory.nameProblem("ab\uD83D")).toContain("not well-formed")
      // A wrapped store or another process's view judges as the store it wraps.
      expect(LockStore.processView(memory).nameProblem("x".repeat(9))).toBe(memory.nameProblem("x".repeat(9)))
    }))

  it.effect("the memory store's name budget is DynamoDB's sort key limit, or what the caller says", () =>
    Effect.gen(function*() {
      expect(LockStore.memoryMaxNameBytes).toBe(1024)
      const wide = LockStore.makeMemory({ maxNameBytes: 2048 })
      const lease = yield* Effect.scoped(Lock.acquire("x".repeat(2048))).pipe(
        Effect.provide(Layer.succeed(LockStore.LockStore, wide))
      )
      expect(lease.name.length).toBe(2048)
    }))
})

describe("options are a record, or left out", () => {
  const handoff = {
    _tag: "LeaseHandoff",
    name: "x",
    owner: "o".repeat(32),
    fence: 1,
    holder: "elsewhere",
    leaseMs: 10_000,
    leaseUntil: 60_000
  } as const

  /** Every entry point that takes options, with `options` in their place (`semaphore` for a semaphore's). */
  const entries = (
    options: never,
    semaphore: never = options
  ): ReadonlyArray<readonly [string, Effect.Effect<unknown, unknown, LockStore.LockStore>]> => {
    const counter = TypedLock.make(Schema.Number)
    return [
      ["Lock.acquire", Effect.scoped(Lock.acquire("x", options))],
      ["Lock.withLock", Lock.withLock("x", Effect.void, options)],
      ["Lock.withLock, pipeable", Effect.void.pipe(Lock.withLock("x", options))],
      ["Lock.validateOptions", Lock.validateOptions(options)],
      ["Lock.resume", Effect.scoped(Lock.resume(handoff, options))],
      ["Lock.withResumed", Lock.withResumed(handoff, Effect.void, options)],
      ["TypedLock acquire", Effect.scoped(counter.acquire("x", 1, options))],
      ["TypedLock withLock", counter.withLock("x", 1, Effect.void, options)],
      ["TypedLock withLock, pipeable", Effect.void.pipe(counter.withLock("x", 1, options))],
      ["LeaderElection.run", LeaderElection.run("x", () => Effect.void, options)],
      ["LeaderElection.leader", Stream.runDrain(LeaderElection.leader("x", options))],
      ["Semaphore.acquire", Effect.scoped(Semaphore.acquire("x", semaphore))],
      ["Semaphore.withPermits", Semaphore.withPermits("x", Effect.void, semaphore)]
    ]
  }

  const notRecords: ReadonlyArray<readonly [string, unknown]> = [
    ["null", null],
    ["an array", [{ lease: "5 seconds" }]],
    ["\"5 seconds\"", "5 seconds"]
  ]
  for (const [shown, options] of notRecords) {
    it.effect(`options that are ${shown} are a LockConfigError wherever they enter, before any store call`, () =>
      Effect.gen(function*() {
        const process = yield* probe(sharedMemory())
        for (const [entry, effect] of entries(options as never)) {
          const error = yield* Effect.flip(effect.pipe(Effect.provide(process.layer)))
          expect(error, entry).toMatchObject({ _tag: "LockConfigError", option: "options" })
          const message = (error as { readonly message: string }).message
          expect(message, entry).toMatch(/^(options|a semaphore's options) must be a record of named options/)
          expect(message, entry).toContain(`; got ${shown}`)
        }
        expect(Object.values(process.calls).every((n) => n === 0)).toBe(true)
      }))
  }

  it.effect("app-wide defaults that are not a record are a LockConfigError where they are read, before any store call", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      const layer = Layer.merge(process.layer, Lock.layerDefaults(null as never))
      for (const [entry, effect] of entries(undefined as never, { limit: 2 } as never)) {
        // It checks options over none of the app-wide defaults.
        if (entry === "Lock.validateOptions") continue
        const error = yield* Effect.flip(effect.pipe(Effect.provide(layer)))
        expect(error, entry).toMatchObject({
          _tag: "LockConfigError",
          option: "options",
          message: "the app-wide lock defaults (Lock.layerDefaults) must be a record of named options; got null"
        })
      }
      expect(Object.values(process.calls).every((n) => n === 0)).toBe(true)
    }))
})

describe("observed takeover trusts no wall clock", () => {
  it.effect("a holder whose wall clock stopped renews on time and is not taken over", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const [a, b] = yield* Effect.all([probe(backing), probe(backing)])
      const frozenAt = yield* Clock.currentTimeMillis
      const frozen = (self: Effect.Effect<unknown, unknown, LockStore.LockStore>) =>
        Effect.clockWith((base) =>
          self.pipe(
            withClock(
              makeClock(() => frozenAt, () => monotonicTimeNanosUnsafe(base), (duration) => base.sleep(duration))
            )
          )
        )
      const options = { lease: "3 seconds", takeover: "observed" } as const
      const holder = yield* forkChild(
        frozen(Lock.withLock("x", Effect.sleep("20 seconds"), options)).pipe(Effect.provide(a.layer))
      )
      yield* settle
      const observer = yield* forkChild(
        Lock.withLock("x", Effect.succeed("taken"), { ...options, wait: "forever" }).pipe(Effect.provide(b.layer))
      )
      yield* TestClock.adjust("19 seconds")
      expect(Option.isNone(yield* poll(observer))).toBe(true)
      expect(Option.isNone(yield* poll(holder))).toBe(true)
      yield* TestClock.adjust("2 seconds")
      yield* Fiber.join(holder)
      expect(yield* Fiber.join(observer)).toBe("taken")
    }))
})
