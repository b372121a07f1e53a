/**
 * A lost lease as a failure: `Lock.scoped` fails with the `LockLost` of a lease that stopped its program, where the
 * program itself can only end interrupted; an interruption from anywhere else stays one, and a program that had
 * already ended keeps its result.
 */
import { describe, expect, it } from "@effect/vitest"
import { Lock, Semaphore, TypedLock } from "@leasehold/lock"
import { Cause, Effect, Exit, Fiber, Option, Schema, Scope } from "effect"
import { forkChild, forkDetach, poll, reasons, regionGuard, TestClock, warningLogger } from "./effectLine.js"
import { probe, settle, sharedMemory } from "./support.js"

const options = { lease: "3 seconds", heartbeat: "1 second" } as const
/** With every renew failing, a lease of `options` ends at lease - safety margin. */
const expiresAfter = "2700 millis"

/** Work under a lease: one step every 100 ms, for ever, counted. */
const steps = () => {
  let count = 0
  const work = Effect.forever(Effect.andThen(Effect.sleep("100 millis"), Effect.sync(() => count++)))
  return { work, count: () => count }
}

/** How an exit ended, as the table of the semantics guide names it. */
const endingOf = (exit: Exit.Exit<unknown, unknown>) => {
  if (Exit.isSuccess(exit)) return { _tag: "Success", value: exit.value } as const
  const parts = reasons(exit.cause)
  if (parts.length > 0 && parts.every((part) => part._tag === "Interrupt")) return { _tag: "Interrupted" } as const
  const failures = parts.flatMap((part) => part._tag === "Fail" ? [part.error] : [])
  return { _tag: "Failed", failures, others: parts.length - failures.length } as const
}

describe("Lock.scoped: a lease lost under the region fails it with LockLost", () => {
  it.effect("stolen: the reason and the new holder are kept, and the program stops", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const [a, b] = yield* Effect.all([probe(backing), probe(backing)])
      const section = steps()
      const region = yield* forkChild(
        Lock.scoped(Effect.andThen(Lock.acquire("x", options), section.work)).pipe(Effect.provide(a.layer))
      )
      yield* TestClock.adjust("1500 millis")
      expect(Option.isSome(yield* backing.forceRelease("x"))).toBe(true)
      const thief = yield* forkChild(
        Effect.scoped(Effect.andThen(Lock.acquire("x", { holder: "thief" }), Effect.never)).pipe(
          Effect.provide(b.layer)
        )
      )
      yield* settle
      // The next renew (by 2 s) finds the new holder.
      yield* TestClock.adjust("600 millis")
      const ending = endingOf(yield* Fiber.await(region))
      expect(ending).toMatchObject({ _tag: "Failed", others: 0 })
      expect(ending._tag === "Failed" && ending.failures).toHaveLength(1)
      expect(ending._tag === "Failed" && ending.failures[0]).toMatchObject({ _tag: "LockLost", name: "x" })
      const error = yield* Effect.flip(Fiber.join(region))
      expect(error).toMatchObject({ reason: "stolen", by: { holder: "thief" } })
      const stepsAtLoss = section.count()
      yield* TestClock.adjust("5 seconds")
      expect(section.count()).toBe(stepsAtLoss)
      yield* Fiber.interrupt(thief)
    }))

  it.effect("expired: the region fails with reason expired at the local deadline, not before", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      process.failing("renew", true)
      const region = yield* forkChild(
        Lock.scoped(Effect.andThen(Lock.acquire("x", options), Effect.never)).pipe(Effect.provide(process.layer))
      )
      yield* TestClock.adjust("2699 millis")
      expect(Option.isNone(yield* poll(region))).toBe(true)
      yield* TestClock.adjust("1 millis")
      expect(yield* Effect.flip(Fiber.join(region))).toMatchObject({ _tag: "LockLost", name: "x", reason: "expired" })
    }))

  it.effect("the same program under Effect.scoped is stopped too, and ends interrupted", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      process.failing("renew", true)
      const section = steps()
      const scope = yield* forkChild(
        Effect.scoped(Effect.andThen(Lock.acquire("x", options), section.work)).pipe(Effect.provide(process.layer))
      )
      yield* TestClock.adjust(expiresAfter)
      expect(endingOf(yield* Fiber.await(scope))).toEqual({ _tag: "Interrupted" })
      const stepsAtLoss = section.count()
      yield* TestClock.adjust("5 seconds")
      expect(section.count()).toBe(stepsAtLoss)
    }))

  it.effect("a program that catches the region's LockLost goes on", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      process.failing("renew", true)
      const program = Lock.scoped(Effect.andThen(Lock.acquire("x", options), Effect.never)).pipe(
        Effect.catchTag("LockLost", (error) => Effect.succeed(`went on after ${error.reason}`)),
        Effect.provide(process.layer)
      )
      const fiber = yield* forkChild(program)
      yield* TestClock.adjust(expiresAfter)
      expect(yield* Fiber.join(fiber)).toBe("went on after expired")
    }))

  it.effect("two leases lost at once: the region fails with one LockLost", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      process.failing("renew", true)
      const region = yield* forkChild(
        Lock.scoped(Effect.gen(function*() {
          yield* Lock.acquire("a", options)
          yield* Lock.acquire("b", options)
          return yield* Effect.never
        })).pipe(Effect.provide(process.layer))
      )
      yield* TestClock.adjust(expiresAfter)
      const ending = endingOf(yield* Fiber.await(region))
      expect(ending).toMatchObject({ _tag: "Failed", others: 0 })
      const failures = ending._tag === "Failed" ? ending.failures : []
      expect(failures).toHaveLength(1)
      expect(failures[0]).toMatchObject({ _tag: "LockLost", reason: "expired" })
      expect(["a", "b"]).toContain((failures[0] as { readonly name: string }).name)
    }))

  it.effect("two leases lost one after the other: the region fails with the first loss", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      process.failing("renew", true)
      const region = yield* forkChild(
        Lock.scoped(Effect.gen(function*() {
          yield* Lock.acquire("a", options)
          // lease 2 s - safety margin 0.2 s: lost at 1.8 s, before "a".
          yield* Lock.acquire("b", { lease: "2 seconds", heartbeat: "500 millis" })
          return yield* Effect.never
        })).pipe(Effect.provide(process.layer))
      )
      yield* TestClock.adjust("1800 millis")
      expect(yield* Effect.flip(Fiber.join(region))).toMatchObject({ _tag: "LockLost", name: "b", reason: "expired" })
    }))

  it.effect("fibers the region forked stop with it; forks that outlive a program that ended keep running", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      process.failing("renew", true)
      const forked = steps()
      const region = yield* forkChild(
        Lock.scoped(Effect.gen(function*() {
          yield* Lock.acquire("x", options)
          yield* forkChild(forked.work)
          return yield* Effect.never
        })).pipe(Effect.provide(process.layer))
      )
      yield* TestClock.adjust(expiresAfter)
      expect(yield* Effect.flip(Fiber.join(region))).toMatchObject({ _tag: "LockLost", reason: "expired" })
      const stepsAtLoss = forked.count()
      yield* TestClock.adjust("5 seconds")
      expect(forked.count()).toBe(stepsAtLoss)

      // No loss: a fiber forked in the region runs on after it, as it would after Effect.scoped, until joined.
      const later = yield* Lock.scoped(
        forkChild(Effect.andThen(Effect.sleep("1 second"), Effect.succeed("joined after the region")))
      ).pipe(Effect.provide(process.layer))
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(later)).toBe("joined after the region")
    }))
})

describe("Lock.scoped: what stays an interruption, and what keeps its own result", () => {
  it.effect("the caller's interrupt stays an interruption, and the region's lease is released", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const process = yield* probe(backing)
      const region = yield* forkChild(
        Lock.scoped(Effect.andThen(Lock.acquire("x", options), Effect.never)).pipe(Effect.provide(process.layer))
      )
      yield* TestClock.adjust("1 second")
      expect(endingOf(yield* Fiber.interrupt(region).pipe(Effect.andThen(Fiber.await(region))))).toEqual({
        _tag: "Interrupted"
      })
      expect(process.calls.release).toBe(1)
      expect(Option.getOrThrow(yield* backing.inspect("x")).owner).toBeUndefined()
    }))

  it.effect("a timeout around the region is the timeout's, though the lease would be lost just after", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      process.failing("renew", true)
      const fiber = yield* forkChild(
        Lock.scoped(Effect.andThen(Lock.acquire("x", options), Effect.never)).pipe(
          Effect.timeout("2699 millis"),
          Effect.provide(process.layer)
        )
      )
      yield* TestClock.adjust("5 seconds")
      const ending = endingOf(yield* Fiber.await(fiber))
      expect(ending).toMatchObject({ _tag: "Failed", others: 0 })
      const failures = ending._tag === "Failed" ? ending.failures : []
      expect(failures).toHaveLength(1)
      expect((failures[0] as { readonly _tag: string })._tag).toMatch(/^Timeout/)
      expect(process.calls.release).toBe(1)
    }))

  it.effect("a forked fiber's loss seen through its join stays an interruption: that fiber was stopped, not the region", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      process.failing("renew", true)
      const region = yield* forkChild(
        Lock.scoped(Effect.gen(function*() {
          const worker = yield* forkChild(Effect.scoped(Effect.andThen(Lock.acquire("x", options), Effect.never)))
          return yield* Fiber.join(worker)
        })).pipe(Effect.provide(process.layer))
      )
      yield* TestClock.adjust(expiresAfter)
      expect(endingOf(yield* Fiber.await(region))).toEqual({ _tag: "Interrupted" })
    }))

  it.effect("a job of a concurrent Effect.all that acquired in a wrapper: the fiber that joined the wrapper is stopped", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      process.failing("renew", true)
      const job = Effect.andThen(Effect.timeout(Lock.acquire("x", options), "5 seconds"), Effect.never)
      const region = yield* forkChild(
        Lock.scoped(Effect.all([job, Effect.never], { concurrency: 2 })).pipe(Effect.provide(process.layer))
      )
      yield* TestClock.adjust(expiresAfter)
      const ending = endingOf(yield* Fiber.await(region))
      // Effect 3: the job joined the wrapper and holds the lease; its interruption reaches the region through the
      // Effect.all. Effect 4: the region's guard takes the lease over for the region's fiber.
      if (regionGuard) expect(ending).toMatchObject({ _tag: "Failed", failures: [{ _tag: "LockLost" }], others: 0 })
      else expect(ending).toEqual({ _tag: "Interrupted" })
    }))

  it.effect("the program's own interrupt stays an interruption", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      const exit = yield* Effect.exit(
        Lock.scoped(Effect.andThen(Lock.acquire("x", options), Effect.interrupt)).pipe(Effect.provide(process.layer))
      )
      expect(endingOf(exit)).toEqual({ _tag: "Interrupted" })
    }))

  for (
    const [label, program, expected] of [
      ["succeeded", Effect.succeed("done"), { _tag: "Success", value: "done" }],
      ["failed", Effect.fail("its own error"), { _tag: "Failed", failures: ["its own error"], others: 0 }]
    ] as const
  ) {
    it.effect(`a program that ${label} before the loss keeps its result while the scope closes`, () =>
      Effect.gen(function*() {
        const process = yield* probe(sharedMemory())
        process.failing("renew", true)
        const region = yield* forkChild(
          Lock.scoped(Effect.gen(function*() {
            yield* Lock.acquire("x", options)
            // Runs first as the scope closes, and outlasts the lease.
            yield* Effect.addFinalizer(() => Effect.sleep("5 seconds"))
            return yield* program
          })).pipe(Effect.provide(process.layer))
        )
        yield* TestClock.adjust("5 seconds")
        expect(endingOf(yield* Fiber.await(region))).toEqual(expected)
      }))
  }
})

describe("Lock.scoped: nested regions, re-entry and hand-off", () => {
  it.effect("a nested region's LockLost can be caught by the outer region, which goes on", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      const outer = yield* forkChild(
        Lock.scoped(Effect.gen(function*() {
          const kept = yield* Lock.acquire("kept", { lease: "1 minute" })
          const inner = yield* Effect.flip(
            Lock.scoped(Effect.andThen(
              Effect.tap(Lock.acquire("lost", options), () => Effect.sync(() => process.failing("renew", true))),
              Effect.never
            ))
          )
          process.failing("renew", false)
          return { inner, kept: yield* kept.isHeld }
        })).pipe(Effect.provide(process.layer))
      )
      yield* TestClock.adjust(expiresAfter)
      const { inner, kept } = yield* Fiber.join(outer)
      expect(inner).toMatchObject({ _tag: "LockLost", name: "lost", reason: "expired" })
      expect(kept).toBe(true)
    }))

  it.effect("a lease of the outer region lost under a nested one fails both with that LockLost", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      process.failing("renew", true)
      const section = steps()
      let innerError: unknown
      const outer = yield* forkChild(
        Lock.scoped(Effect.gen(function*() {
          yield* Lock.acquire("x", options)
          yield* Lock.scoped(Effect.andThen(Lock.acquire("x", options), section.work)).pipe(
            Effect.tapError((error) => Effect.sync(() => (innerError = error)))
          )
        })).pipe(Effect.provide(process.layer))
      )
      yield* TestClock.adjust(expiresAfter)
      expect(yield* Effect.flip(Fiber.join(outer))).toMatchObject({ _tag: "LockLost", name: "x", reason: "expired" })
      // The outer region's fiber is stopped by the same loss: the nested region may not get to say it failed.
      if (innerError !== undefined) expect(innerError).toMatchObject({ _tag: "LockLost", reason: "expired" })
      const stepsAtLoss = section.count()
      yield* TestClock.adjust("5 seconds")
      expect(section.count()).toBe(stepsAtLoss)
      expect(process.calls.tryAcquire).toBe(1)
    }))

  it.effect("a region that re-entered a lease fails with reason released when the outer acquisition releases it", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      const borrowed = steps()
      let region: Fiber.Fiber<unknown, unknown> | undefined
      yield* Effect.scoped(Effect.gen(function*() {
        yield* Lock.acquire("x", options)
        region = yield* forkDetach(Lock.scoped(Effect.andThen(Lock.acquire("x", options), borrowed.work)))
        yield* Effect.sleep("1 second")
      })).pipe(Effect.provide(process.layer), forkChild)
      yield* TestClock.adjust("1 second")
      expect(yield* Effect.flip(Fiber.join(region!))).toMatchObject({ _tag: "LockLost", name: "x", reason: "released" })
      expect(process.calls.tryAcquire).toBe(1)
      const stepsAtRelease = borrowed.count()
      yield* TestClock.adjust("5 seconds")
      expect(borrowed.count()).toBe(stepsAtRelease)
    }))

  it.effect("a region re-enters a lease its caller acquired inside a wrapper that put the context back", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      const fences = yield* Effect.scoped(Effect.gen(function*() {
        const lease = yield* Effect.withSpan(Lock.acquire("x", options), "acquire")
        const nested = yield* Lock.scoped(Effect.map(Lock.acquire("x", options), (inner) => inner.fence))
        return [lease.fence, nested]
      })).pipe(Effect.provide(process.layer))
      expect(fences[1]).toBe(fences[0])
      expect(process.calls.tryAcquire).toBe(1)
    }))

  it.effect("a lease the region acquired into its caller's scope: the caller relies on it after the region", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      const logged: Array<unknown> = []
      process.failing("renew", true)
      const caller = yield* forkChild(
        Effect.scoped(Effect.gen(function*() {
          const scope = yield* Effect.scope
          yield* Lock.scoped(Effect.provideService(Lock.acquire("x", options), Scope.Scope, scope))
          return yield* Effect.never
        })).pipe(Effect.provide([process.layer, warningLogger((message) => logged.push(message))]))
      )
      yield* TestClock.adjust(expiresAfter)
      if (regionGuard) {
        // Effect 4 passes nothing back from the region's fiber: the lease is refused as that fiber ends, and the scope
        // it was acquired into fails as it closes.
        expect(logged.length).toBeGreaterThan(0)
        expect(Option.isNone(yield* poll(caller))).toBe(true)
        const exit = yield* Fiber.interrupt(caller).pipe(Effect.andThen(Fiber.await(caller)))
        expect(reasons(Exit.isFailure(exit) ? exit.cause : Cause.empty).some((part) => part._tag === "Die")).toBe(true)
      } else {
        // Effect 3: the caller took the lease over from the region's fiber, as a joiner does, and its loss stops it.
        expect(endingOf(yield* Fiber.await(caller))).toEqual({ _tag: "Interrupted" })
      }
    }))

  it.effect("a lease handed off by another fiber of the region fails it with reason handedOff", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      const region = yield* forkChild(
        Lock.scoped(Effect.gen(function*() {
          const lease = yield* Lock.acquire("x", options)
          yield* forkChild(Effect.andThen(Effect.sleep("1 second"), Lock.handOff(lease)))
          return yield* Effect.never
        })).pipe(Effect.provide(process.layer))
      )
      yield* TestClock.adjust("1 second")
      expect(yield* Effect.flip(Fiber.join(region))).toMatchObject({ _tag: "LockLost", reason: "handedOff" })
      expect(process.calls.release).toBe(0)
    }))
})

describe("Lock.scoped: every scoped lease is lost the same way", () => {
  it.effect("permits of Semaphore.acquire: LockLost with the permits", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      process.failing("renewPermits", true)
      const region = yield* forkChild(
        Lock.scoped(Effect.andThen(Semaphore.acquire("pool", { limit: 3, permits: 2, ...options }), Effect.never)).pipe(
          Effect.provide(process.layer)
        )
      )
      yield* TestClock.adjust(expiresAfter)
      expect(yield* Effect.flip(Fiber.join(region))).toMatchObject({
        _tag: "LockLost",
        name: "pool",
        reason: "expired",
        permits: 2
      })
    }))

  it.effect("a TypedLock lease: LockLost", () =>
    Effect.gen(function*() {
      const Jobs = TypedLock.make(Schema.Struct({ step: Schema.Number }))
      const process = yield* probe(sharedMemory())
      process.failing("renew", true)
      const region = yield* forkChild(
        Lock.scoped(Effect.andThen(Jobs.acquire("jobs/a", { step: 1 }, options), Effect.never)).pipe(
          Effect.provide(process.layer)
        )
      )
      yield* TestClock.adjust(expiresAfter)
      expect(yield* Effect.flip(Fiber.join(region))).toMatchObject({ _tag: "LockLost", name: "jobs/a" })
    }))

  it.effect("a resumed lease: Lock.resume under Lock.scoped and Lock.withResumed fail with LockLost", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      const handOff = Effect.scoped(Effect.flatMap(Lock.acquire("x", { lease: "3 seconds" }), Lock.handOff))
      // The resuming write is a renew: the renews that keep the lease fail from then on.
      const renewsFail = Effect.sync(() => process.failing("renew", true))
      const first = yield* handOff.pipe(Effect.provide(process.layer))
      const scoped = yield* forkChild(
        Lock.scoped(Effect.andThen(Lock.resume(first, options), Effect.andThen(renewsFail, Effect.never))).pipe(
          Effect.provide(process.layer)
        )
      )
      yield* TestClock.adjust(expiresAfter)
      expect(yield* Effect.flip(Fiber.join(scoped))).toMatchObject({ _tag: "LockLost", reason: "expired" })

      process.failing("renew", false)
      const second = yield* handOff.pipe(Effect.provide(process.layer))
      const section = yield* forkChild(
        Lock.withResumed(second, Effect.andThen(renewsFail, Effect.never), options).pipe(Effect.provide(process.layer))
      )
      yield* TestClock.adjust(expiresAfter)
      expect(yield* Effect.flip(Fiber.join(section))).toMatchObject({ _tag: "LockLost", reason: "expired" })
    }))
})
