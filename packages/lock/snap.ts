import { Deferred, Effect, Fiber } from "effect"
import * as v8 from "node:v8"
import * as Lock from "./src/Lock.js"
import * as LockStore from "./src/LockStore.js"
const N = Number(process.argv[2])
await Effect.runPromise(
  Effect.gen(function*() {
    const gate = yield* Deferred.make<void>()
    const held = yield* Effect.forEach(
      Array.from({ length: N }, (_, i) => i),
      (i) => Effect.fork(Effect.scoped(Effect.zipRight(Lock.acquire(`k${i}`), Deferred.await(gate))))
    )
    yield* Effect.sleep("300 millis")
    globalThis.gc!()
    console.log(v8.writeHeapSnapshot(`/tmp/snap${N}.heapsnapshot`))
    yield* Deferred.succeed(gate, undefined)
    yield* Fiber.joinAll(held)
  }).pipe(Effect.provide(LockStore.layerMemory))
)
