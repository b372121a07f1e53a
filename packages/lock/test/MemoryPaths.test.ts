import { describe, expect, it } from "@effect/vitest"
import { Lock, LockStore } from "@leasehold/lock"
import { Effect, Fiber, Layer, Option } from "effect"
import { forkChild, TestClock } from "./effectLine.js"

const options = { lease: "3 seconds", heartbeat: "1 second" } as const

/**
 * The memory store answers at once, so the lock layer skips the guards against a slow store for it; behind
 * `LockStore.intercept` it is treated as any other store. A lease's whole life must come out the same either way.
 */
const stores = [
  ["the memory store", () => LockStore.makeMemory()],
  ["the memory store behind a wrapper", () => LockStore.intercept(LockStore.makeMemory(), (_operation, call) => call)]
] as const

describe("the memory store, answering at once or taken as any other store", () => {
  for (const [label, make] of stores) {
    it.effect(`${label}: fences, waiting, loss and release come out the same`, () =>
      Effect.gen(function*() {
        const store = make()
        const layer = Layer.succeed(LockStore.LockStore, store)
        const first = yield* Lock.withLock("a", Effect.andThen(Effect.sleep("2 seconds"), Lock.acquire("a")), options)
          .pipe(Effect.scoped, Effect.provide(layer), forkChild)
        const second = yield* Lock.withLock("a", Lock.acquire("a"), { ...options, wait: "forever" }).pipe(
          Effect.scoped,
          Effect.provide(layer),
          forkChild
        )
        yield* TestClock.adjust("2 seconds")
        const [firstLease, secondLease] = [yield* Fiber.join(first), yield* Fiber.join(second)]
        expect(secondLease.fence).toBeGreaterThan(firstLease.fence)
        // A holder whose lock an operator freed learns it at its next renew, and its section ends with the loss.
        const held = yield* Lock.withLock("b", Effect.never, options).pipe(Effect.provide(layer), forkChild)
        yield* TestClock.adjust("10 millis")
        expect(Option.isSome(yield* store.forceRelease("b"))).toBe(true)
        yield* TestClock.adjust("1 second")
        const lost = yield* Effect.flip(Fiber.join(held))
        expect(lost).toMatchObject({ _tag: "LockLost", reason: "freed" })
        // Every lock is given back: nothing is held once the sections are over.
        for (const name of ["a", "b"]) expect(Option.getOrThrow(yield* store.inspect(name)).owner).toBeUndefined()
      }))
  }
})
