// The README's examples and those of the site's guides (site/src/guide), kept compiling and passing.
import { expect, it } from "@effect/vitest"
import { Lock, LockStore, Semaphore } from "@leasehold/lock"
import { Effect, Fiber, TestClock } from "effect"

it.effect("README: a second caller waits for the first", () =>
  Effect.gen(function*() {
    const first = yield* Effect.fork(Lock.withLock("job", Effect.sleep("10 seconds")))
    const second = yield* Effect.fork(Lock.withLock("job", Effect.succeed("ran"), { wait: "forever" }))
    yield* TestClock.adjust("10 seconds")
    yield* Fiber.join(first)
    expect(yield* Fiber.join(second)).toBe("ran")
  }).pipe(Effect.provide(LockStore.layerMemory)))

it.effect("README: a first lock, both forms", () =>
  Effect.gen(function*() {
    const ran: Array<string> = []
    const nightlyReport = Effect.sync(() => ran.push("report"))
    const program = Effect.scoped(Lock.withLock("nightly-report", nightlyReport))
    const same = nightlyReport.pipe(Lock.withLock("nightly-report", { wait: "30 seconds" }))
    yield* program
    yield* same
    expect(ran).toEqual(["report", "report"])
  }).pipe(Effect.provide(LockStore.layerMemory)))

it.effect("README: a lock as a scoped resource, with its fencing token", () =>
  Effect.gen(function*() {
    const fences: Array<number> = []
    const writeSomewhere = (input: { fence: number }) => Effect.sync(() => fences.push(input.fence))
    const handle = Effect.gen(function*() {
      const lease = yield* Lock.acquire("orders/42", { wait: "30 seconds", lease: "20 seconds" })
      yield* writeSomewhere({ fence: lease.fence })
    }).pipe(Effect.scoped)
    yield* handle
    yield* handle
    expect(fences).toEqual([1, 2])
  }).pipe(Effect.provide(LockStore.layerMemory)))

it.effect("README: the first program, where the second caller runs once the first has released", () =>
  Effect.gen(function*() {
    const log: Array<string> = []
    const report = (who: string) =>
      Lock.withLock(
        "nightly-report",
        Effect.gen(function*() {
          log.push(`${who}: holding the lock`)
          yield* Effect.sleep("1 second")
          log.push(`${who}: done, releasing`)
        }),
        { wait: "5 seconds" }
      )
    const program = Effect.all([report("first"), report("second")], { concurrency: "unbounded" })
    const fiber = yield* Effect.fork(program)
    yield* TestClock.adjust("5 seconds")
    yield* Fiber.join(fiber)
    expect(log).toEqual([
      "first: holding the lock",
      "first: done, releasing",
      "second: holding the lock",
      "second: done, releasing"
    ])
  }).pipe(Effect.provide(LockStore.layerMemory)))

it.effect("README: another process finds the lock held until it is released", () =>
  Effect.gen(function*() {
    const shared = LockStore.makeMemory()
    const otherProcess = LockStore.layerProcess(shared)
    const tryJob = Lock.withLock("job", Effect.succeed("ran")).pipe(Effect.provide(otherProcess))
    yield* Effect.gen(function*() {
      yield* Lock.acquire("job")
      const refused = yield* Effect.flip(tryJob)
      expect(refused._tag).toBe("LockNotAcquired")
    }).pipe(Effect.scoped, Effect.provide(LockStore.layerProcess(shared)))
    expect(yield* tryJob).toBe("ran")
  }))

it.effect("README: a semaphore runs at most its limit of sections at once, and the rest wait their turn", () =>
  Effect.gen(function*() {
    let running = 0
    let most = 0
    const call = Effect.acquireUseRelease(
      Effect.sync(() => most = Math.max(most, ++running)),
      () => Effect.sleep("2 seconds"),
      () => Effect.sync(() => running--)
    ).pipe(Semaphore.withPermits("partner-api", { limit: 4, wait: "1 minute" }))
    const calls = yield* Effect.fork(Effect.all(Array.from({ length: 10 }, () => call), { concurrency: "unbounded" }))
    for (let second = 0; second < 12; second++) yield* TestClock.adjust("1 second")
    yield* Fiber.join(calls)
    expect(most).toBe(4)
    expect(running).toBe(0)
  }).pipe(Effect.provide(LockStore.layerMemory)))
