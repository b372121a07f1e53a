import { Cause, Duration, Effect, Exit, Fiber, FiberRef, Metric } from "effect"
import * as Acquire from "./src/internal/acquire.js"
import { monotonicMillis } from "./src/internal/clock.js"
import * as Keeper from "./src/internal/keeper.js"
import * as LocalQueue from "./src/internal/localQueue.js"
import * as Options from "./src/internal/options.js"
import * as Lock from "./src/Lock.js"
import * as LockStore from "./src/LockStore.js"
const store = LockStore.makeMemory()
let i = 0
const ref = FiberRef.unsafeMake<ReadonlyArray<string>>([])
const kept = (withKeeper: boolean) =>
  Effect.gen(function*() {
    const resolved = yield* Options.resolve({}, undefined, "me")
    const name = yield* Options.validateName("k", 2048)
    const startedAt = yield* monotonicMillis
    const owner = `o${i++}`
    yield* LocalQueue.enter(store.local, name, Duration.zero)
    const a = yield* Acquire.acquireLoop({ store, name, owner, options: resolved, startedAt })
    if (!withKeeper) {
      return {
        release: Effect.zipRight(store.release({ name, owner, fence: undefined }), LocalQueue.leave(store.local, name))
      }
    }
    return yield* Keeper.start({
      store,
      record: a.record,
      options: resolved,
      sentAt: a.sentAt,
      onLost: () => Effect.void
    })
  })
const cases: Array<[string, Effect.Effect<unknown, unknown, any>]> = [
  ["fork", Effect.flatMap(Effect.fork(Effect.void), Fiber.await)],
  ["A no keeper", Effect.flatMap(kept(false), (k) => k.release)],
  ["B keeper", Effect.flatMap(kept(true), (k) => k.release)],
  [
    "C keeper+mask+ensuring",
    Effect.uninterruptibleMask((r) => Effect.flatMap(kept(true), (k) => Effect.ensuring(r(Effect.void), k.release)))
  ],
  [
    "D +fork section",
    Effect.uninterruptibleMask((r) =>
      Effect.flatMap(kept(true), (k) =>
        Effect.ensuring(
          Effect.gen(function*() {
            const f = yield* Effect.fork(r(Effect.locallyWith(Effect.void, ref, (x) => [...x, "k"])))
            const exit = yield* r(Fiber.await(f)).pipe(Effect.onInterrupt(() => Fiber.interrupt(f)))
            if (Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause)) return 1
            return yield* exit
          }),
          k.release
        ))
    )
  ],
  ["E +span", Effect.withSpan(Effect.flatMap(kept(true), (k) => k.release), "x", { captureStackTrace: false })],
  ["F withLock", Lock.withLock("k", Effect.void)]
]
await Effect.runPromise(
  Effect.gen(function*() {
    const res: Record<string, number[]> = {}
    for (let round = 0; round < 9; round++) {
      for (const [name, eff] of cases) {
        const n = 4000
        const c0 = process.cpuUsage()
        for (let j = 0; j < n; j++) yield* eff
        const c = process.cpuUsage(c0)
        if (round > 0) (res[name] ??= []).push((c.user + c.system) / n)
      }
    }
    const med = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!
    for (const [k, v] of Object.entries(res)) console.log(k.padEnd(34), med(v).toFixed(1), "cpu µs")
  }).pipe(Effect.provideService(LockStore.LockStore, store))
)
