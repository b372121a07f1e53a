import { Effect, Fiber } from "effect"
import * as Lock from "./src/Lock.js"
import * as LockStore from "./src/LockStore.js"
const cases: Record<string, Effect.Effect<unknown, unknown, LockStore.LockStore>> = {
  fork: Effect.flatMap(Effect.fork(Effect.void), Fiber.await),
  withLock: Lock.withLock("k", Effect.void),
  acquire: Effect.scoped(Lock.acquire("s"))
}
const filter = process.argv[2]
await Effect.runPromise(
  Effect.gen(function*() {
    const res: Record<string, number[]> = {}
    for (let round = 0; round < 7; round++) {
      for (const [name, eff] of Object.entries(cases)) {
        if (filter && !filter.split(",").includes(name)) continue
        const n = name === "fork" ? 20000 : 5000
        const c0 = process.cpuUsage()
        for (let j = 0; j < n; j++) yield* eff
        const c = process.cpuUsage(c0)
        if (round > 0) (res[name] ??= []).push((c.user + c.system) / n)
      }
    }
    const med = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!
    const f = med(res.fork ?? [1])
    for (const [k, v] of Object.entries(res)) {
      console.log(k.padEnd(10), med(v).toFixed(1), "cpu µs", (med(v) / f).toFixed(1), "x fork")
    }
  }).pipe(Effect.provide(LockStore.layerMemory))
)
