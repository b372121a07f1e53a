import { Duration, Effect, Fiber } from "effect"
import * as Acquire from "./src/internal/acquire.js"
import * as Keeper from "./src/internal/keeper.js"
import * as LocalQueue from "./src/internal/localQueue.js"
import * as Options from "./src/internal/options.js"
import * as Lock from "./src/Lock.js"
import * as LockStore from "./src/LockStore.js"
const store = LockStore.makeMemory()
const resolvedE = Options.resolve({}, undefined, "me")
const time = (name: string, eff: Effect.Effect<unknown, unknown>, n = 20000) =>
  Effect.gen(function*() {
    for (let i = 0; i < n / 4; i++) yield* eff
    const t0 = performance.now()
    for (let i = 0; i < n; i++) yield* eff
    console.log(name.padEnd(36), ((performance.now() - t0) * 1000 / n).toFixed(1), "µs")
  })
await Effect.runPromise(
  Effect.gen(function*() {
    const resolved = yield* resolvedE
    let i = 0
    yield* time(
      "store tryAcquire+release",
      Effect.gen(function*() {
        const owner = `o${i++}`
        yield* store.tryAcquire({
          name: "a",
          owner,
          holder: "h",
          leaseMs: 30000,
          data: undefined,
          takeover: { _tag: "Absolute", maxClockSkewMs: 10000 }
        })
        yield* store.release({ name: "a", owner, fence: undefined })
      })
    )
    yield* time(
      "local enter+leave",
      Effect.zipRight(LocalQueue.enter(store.local, "b", Duration.zero), LocalQueue.leave(store.local, "b"))
    )
    yield* time("options resolve", resolvedE)
    yield* time(
      "acquireLoop + release",
      Effect.gen(function*() {
        const owner = `o${i++}`
        yield* Acquire.acquireLoop({ store, name: "c", owner, options: resolved, startedAt: 0 })
        yield* store.release({ name: "c", owner, fence: undefined })
      })
    )
    yield* time(
      "keeper start+release",
      Effect.gen(function*() {
        const owner = `o${i++}`
        const a = yield* Acquire.acquireLoop({ store, name: "d", owner, options: resolved, startedAt: 0 })
        const k = yield* Keeper.start({
          store,
          record: a.record,
          options: resolved,
          sentAt: a.sentAt,
          onLost: () => Effect.void
        })
        yield* k.release
      })
    )
    yield* time("withLock void", Lock.withLock("e", Effect.void))
    yield* time("acquire scoped", Effect.scoped(Lock.acquire("f")))
    yield* time("withSpan", Effect.withSpan(Effect.void, "x", { captureStackTrace: false }))
    yield* time("forkDaemon never+interrupt", Effect.flatMap(Effect.forkDaemon(Effect.never), Fiber.interrupt))
    yield* time(
      "forkDaemon sleep+interrupt",
      Effect.flatMap(Effect.forkDaemon(Effect.sleep("10 seconds")), Fiber.interrupt)
    )
    yield* time("timeout", Effect.timeout(Effect.void, "2 seconds"))
  }).pipe(Effect.provideService(LockStore.LockStore, store))
)
