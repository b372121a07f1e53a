import { Duration, Effect, Fiber, Schedule } from "effect"
import * as LockStore from "./src/LockStore.js"
const store = LockStore.makeMemory()
const rel = store.release({ name: "x", owner: "o", fence: 1 })
const releaseInStore = rel.pipe(
  Effect.interruptible,
  Effect.timeout(Duration.seconds(2)),
  Effect.retry(Schedule.intersect(Schedule.exponential(Duration.millis(50)), Schedule.recurs(2))),
  Effect.matchCauseEffect({ onSuccess: () => Effect.void, onFailure: () => Effect.void }),
  Effect.withSpan("Lock.release", { captureStackTrace: false })
)
const loop = Effect.gen(function*() {
  while (true) yield* Effect.sleep(Duration.millis(10000))
})
const cases: Array<[string, Effect.Effect<unknown, unknown>]> = [
  ["fork", Effect.flatMap(Effect.fork(Effect.void), Fiber.await)],
  ["daemon sleep loop + interrupt", Effect.flatMap(Effect.forkDaemon(Effect.interruptible(loop)), Fiber.interrupt)],
  [
    "daemon loop ensuring + interrupt",
    Effect.flatMap(Effect.forkDaemon(Effect.interruptible(loop).pipe(Effect.ensuring(Effect.void))), Fiber.interrupt)
  ],
  ["releaseInStore", releaseInStore],
  ["timeout only", Effect.timeout(rel, Duration.seconds(2))],
  ["raceFirst", Effect.raceFirst(rel, Effect.never)]
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
  for (const [k, v] of Object.entries(res)) console.log(k.padEnd(34), med(v).toFixed(1), "cpu µs")
}))
