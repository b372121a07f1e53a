import { Effect, Fiber, FiberRef } from "effect"
import * as Lock from "./src/Lock.js"
import * as LockStore from "./src/LockStore.js"
const fork = Effect.flatMap(Effect.fork(Effect.void), Fiber.await)
const cases: Record<string, Effect.Effect<unknown, unknown, LockStore.LockStore>> = {
  fork,
  withLock: Lock.withLock("k", Effect.void),
  "acquire scoped": Effect.scoped(Lock.acquire("s")),
  "acquire scoped + fork": Effect.scoped(Effect.zipRight(Lock.acquire("t"), fork))
}
await Effect.runPromise(
  Effect.gen(function*() {
    const res: Record<string, number[]> = {}
    for (let round = 0; round < 10; round++) {
      for (const [name, eff] of Object.entries(cases)) {
        const n = 3000
        const c0 = process.cpuUsage()
        for (let j = 0; j < n; j++) yield* eff
        const c = process.cpuUsage(c0)
        if (round > 1) (res[name] ??= []).push((c.user + c.system) / n)
      }
    }
    const med = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!
    for (const [k, v] of Object.entries(res)) console.log(k.padEnd(22), med(v).toFixed(1), "cpu µs")
  }).pipe(Effect.provide(LockStore.layerMemory))
)
