import { Effect, Fiber } from "effect"
import * as Lock from "./src/Lock.js"
import * as LockStore from "./src/LockStore.js"
const n = Number(process.argv[2] ?? 1000)
const what = process.argv[3] ?? "withLock"
const eff: Effect.Effect<unknown, unknown, LockStore.LockStore> = what === "fork"
  ? Effect.flatMap(Effect.fork(Effect.void), Fiber.await)
  : what === "acquire"
  ? Effect.scoped(Lock.acquire("s"))
  : Lock.withLock("k", Effect.void)
await Effect.runPromise(
  Effect.gen(function*() {
    for (let j = 0; j < n; j++) yield* eff
  }).pipe(Effect.provide(LockStore.layerMemory))
)
