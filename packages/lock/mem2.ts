import { Deferred, Effect, Fiber } from "effect"
import * as LockStore from "./src/LockStore.js"
const N = 5000
const heap = () => {
  globalThis.gc!()
  globalThis.gc!()
  return process.memoryUsage().heapUsed
}
await Effect.runPromise(
  Effect.gen(function*() {
    const h0 = heap()
    const daemons = yield* Effect.forEach(
      Array.from({ length: N }, (_, i) => i),
      () =>
        Effect.forkDaemon(Effect.interruptible(Effect.gen(function*() {
          while (true) {
            yield* Effect.sleep("10 seconds")
          }
        })))
    )
    yield* Effect.sleep("100 millis")
    const h1 = heap()
    const spanned = yield* Effect.forEach(
      Array.from({ length: N }, (_, i) => i),
      () =>
        Effect.withSpan(
          Effect.forkDaemon(Effect.interruptible(Effect.gen(function*() {
            while (true) yield* Effect.sleep("10 seconds")
          }))),
          "x",
          { attributes: { a: "b" } }
        )
    )
    yield* Effect.sleep("100 millis")
    const h2 = heap()
    console.log(
      "daemon sleeping KiB",
      ((h1 - h0) / N / 1024).toFixed(2),
      "daemon forked in a span KiB",
      ((h2 - h1) / N / 1024).toFixed(2)
    )
    yield* Fiber.interruptAll([...daemons, ...spanned])
  }).pipe(Effect.provide(LockStore.layerMemory))
)
