import { Duration, Effect, Fiber, FiberRef, Metric } from "effect"
import * as Acquire from "./src/internal/acquire.js"
import { monotonicMillis } from "./src/internal/clock.js"
import * as Keeper from "./src/internal/keeper.js"
import * as LocalQueue from "./src/internal/localQueue.js"
import * as Options from "./src/internal/options.js"
import * as LockStore from "./src/LockStore.js"
const store = LockStore.makeMemory()
let i = 0
const steps = (level: number) =>
  Effect.gen(function*() {
    const resolved = yield* Options.resolve({}, undefined, "me")
    const name = yield* Options.validateName("k", 2048)
    const startedAt = yield* monotonicMillis
    const owner = `o${i++}`
    if (level < 1) return
    yield* LocalQueue.enter(store.local, name, Duration.zero)
    if (level >= 2) {
      const a = yield* Acquire.acquireLoop({ store, name, owner, options: resolved, startedAt })
      if (level >= 3) {
        const k = yield* Keeper.start({
          store,
          record: a.record,
          options: resolved,
          sentAt: a.sentAt,
          onLost: () => Effect.void
        })
        yield* k.release
        return
      }
      yield* store.release({ name, owner, fence: undefined })
    }
    yield* LocalQueue.leave(store.local, name)
  })
const cases: Array<[string, Effect.Effect<unknown, unknown>]> = [
  ["fork", Effect.flatMap(Effect.fork(Effect.void), Fiber.await)],
  ["0 resolve+name", steps(0)],
  ["1 +queue", steps(1)],
  ["2 +acquireLoop+release", steps(2)],
  ["3 +keeper", steps(3)],
  ["4 +uninterruptibleMask", Effect.uninterruptibleMask((r) => r(steps(3)))],
  ["5 +span", Effect.withSpan(steps(3), "x", { captureStackTrace: false })]
]
await Effect.runPromise(Effect.gen(function*() {
  const res: Record<string, number[]> = {}
  for (let round = 0; round < 7; round++) {
    for (const [name, eff] of cases) {
      const n = 5000
      const c0 = process.cpuUsage()
      for (let j = 0; j < n; j++) yield* eff
      const c = process.cpuUsage(c0)
      if (round > 0) (res[name] ??= []).push((c.user + c.system) / n)
    }
  }
  const med = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!
  for (const [k, v] of Object.entries(res)) console.log(k.padEnd(28), med(v).toFixed(1), "cpu µs")
}))
