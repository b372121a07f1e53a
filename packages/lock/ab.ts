import { Effect, Fiber } from "effect"
import * as Lock from "./src/Lock.js"
import * as LockStore from "./src/LockStore.js"
const variants: Record<string, object> = {
  base: {},
  noReleaseTimeout: { noReleaseTimeout: 1 },
  noSpan: { noSpan: 1 },
  noMetrics: { noMetrics: 1 },
  inline: { inline: 1 },
  all: { noReleaseTimeout: 1, noSpan: 1, noMetrics: 1, inline: 1 }
}
const fork = Effect.flatMap(Effect.fork(Effect.void), Fiber.await)
await Effect.runPromise(
  Effect.gen(function*() {
    const res: Record<string, number[]> = {}
    for (let round = 0; round < 12; round++) {
      for (const [name, x] of Object.entries({ fork: {}, ...variants })) {
        ;(globalThis as any).X = x
        const eff = name === "fork" ? fork : Lock.withLock("k", Effect.void)
        const n = name === "fork" ? 10000 : 3000
        const c0 = process.cpuUsage()
        for (let j = 0; j < n; j++) yield* eff
        const c = process.cpuUsage(c0)
        if (round > 1) (res[name] ??= []).push((c.user + c.system) / n)
      }
    }
    const med = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!
    for (const [k, v] of Object.entries(res)) {
      console.log(k.padEnd(18), med(v).toFixed(1), "cpu µs", (med(v) / med(res.fork!)).toFixed(1), "x fork")
    }
  }).pipe(Effect.provide(LockStore.layerMemory))
)
