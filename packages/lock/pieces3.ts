import { Effect } from "effect"
import * as Acquire from "./src/internal/acquire.js"
import * as Keeper from "./src/internal/keeper.js"
import * as Options from "./src/internal/options.js"
import * as LockStore from "./src/LockStore.js"
const store = LockStore.makeMemory()
await Effect.runPromise(Effect.gen(function*() {
  const resolved = yield* Options.resolve({}, undefined, "me")
  let i = 0
  const eff = Effect.gen(function*() {
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
  for (let j = 0; j < 5000; j++) yield* eff
  const t0 = performance.now()
  for (let j = 0; j < 40000; j++) yield* eff
  console.log(((performance.now() - t0) * 1000 / 40000).toFixed(1), "µs")
}))
