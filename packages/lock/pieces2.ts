import { Clock, Duration, Effect, Fiber, Metric, Schedule } from "effect"
import { monotonicMillis } from "./src/internal/clock.js"
import * as LockStore from "./src/LockStore.js"
const store = LockStore.makeMemory()
const time = (name: string, eff: Effect.Effect<unknown, unknown>, n = 20000) =>
  Effect.gen(function*() {
    for (let i = 0; i < n / 4; i++) yield* eff
    const t0 = performance.now()
    for (let i = 0; i < n; i++) yield* eff
    console.log(name.padEnd(36), ((performance.now() - t0) * 1000 / n).toFixed(1), "µs")
  })
const rel = store.release({ name: "x", owner: "o", fence: 1 })
await Effect.runPromise(Effect.gen(function*() {
  yield* time("release", rel)
  yield* time("release interruptible timeout", rel.pipe(Effect.interruptible, Effect.timeout("2 seconds")))
  yield* time(
    "+retry",
    rel.pipe(
      Effect.interruptible,
      Effect.timeout("2 seconds"),
      Effect.retry(Schedule.intersect(Schedule.exponential(Duration.millis(50)), Schedule.recurs(2)))
    )
  )
  yield* time(
    "retry only",
    rel.pipe(Effect.retry(Schedule.intersect(Schedule.exponential(Duration.millis(50)), Schedule.recurs(2))))
  )
  yield* time("monotonicMillis", monotonicMillis)
  yield* time("currentTimeMillis", Clock.currentTimeMillis)
  yield* time("sleep 0", Effect.sleep(Duration.millis(0)))
  yield* time(
    "gen 3 yields",
    Effect.gen(function*() {
      yield* Effect.void
      yield* Effect.void
      yield* Effect.void
    })
  )
  yield* time("logDebug", Effect.logDebug("x"))
  yield* time(
    "uninterruptible gen",
    Effect.uninterruptible(Effect.gen(function*() {
      yield* Effect.void
    }))
  )
  yield* time("ensuring", Effect.ensuring(Effect.void, Effect.void))
}))
