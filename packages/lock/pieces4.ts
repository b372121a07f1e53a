import { Effect } from "effect"
import * as Lock from "./src/Lock.js"
import * as LockStore from "./src/LockStore.js"
const n = Number(process.argv[2] ?? 20000)
await Effect.runPromise(
  Effect.gen(function*() {
    for (let j = 0; j < n; j++) yield* Lock.withLock("k", Effect.void)
  }).pipe(Effect.provide(LockStore.layerMemory))
)
