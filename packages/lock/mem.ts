import { Deferred, Effect, Fiber } from "effect"
import * as Lock from "./src/Lock.js"
import * as LockStore from "./src/LockStore.js"
const N = 5000
const heap = () => {
  globalThis.gc!()
  globalThis.gc!()
  return process.memoryUsage().heapUsed
}
await Effect.runPromise(
  Effect.gen(function*() {
    const gate = yield* Deferred.make<void>()
    const h0 = heap()
    const idle = yield* Effect.forEach(
      Array.from({ length: N }, (_, i) => i),
      () => Effect.fork(Effect.scoped(Deferred.await(gate)))
    )
    yield* Effect.sleep("100 millis")
    const h1 = heap()
    const held = yield* Effect.forEach(
      Array.from({ length: N }, (_, i) => i),
      (i) => Effect.fork(Effect.scoped(Effect.zipRight(Lock.acquire(`k${i}`), Deferred.await(gate))))
    )
    yield* Effect.sleep("300 millis")
    const h2 = heap()
    console.log(
      "idle fiber+scope KiB",
      ((h1 - h0) / N / 1024).toFixed(2),
      " held lock KiB (incl its fiber+scope)",
      ((h2 - h1) / N / 1024).toFixed(2)
    )
    yield* Deferred.succeed(gate, undefined)
    yield* Fiber.joinAll([...idle, ...held])
  }).pipe(Effect.provide(LockStore.layerMemory))
)
