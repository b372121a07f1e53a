import { describe, expect, it } from "@effect/vitest"
import { type Lease, LeaseHandoff, Lock, LockError, LockStore } from "@leasehold/lock"
import { Cause, Clock, Deferred, Effect, Exit, Fiber, Layer, Option, Schema } from "effect"
import { forkChild, poll, reasons, TestClock, withFixedRandom, yieldNow } from "./effectLine.js"
import { outcome, probe, repeatTimes, settle, sharedMemory, withClockOffset } from "./support.js"

const now = Clock.currentTimeMillis

const record = (store: LockStore.LockStore, name: string) => Effect.map(store.inspect(name), Option.getOrThrow)

/** The typed failure of `exit`, which must be one. */
const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const failure = reasons(exit.cause).find((reason) => reason._tag === "Fail")
  if (failure === undefined) throw new Error(`expected a typed failure: ${Cause.pretty(exit.cause)}`)
  return failure.error
}

/** A fiber of its own acquires `name` and holds it (until interrupted); the lease, without joining that fiber. */
const heldElsewhere = (layer: Layer.Layer<LockStore.LockStore>, name: string, options?: Lock.LockOptions) =>
  Effect.gen(function*() {
    const leased = yield* Deferred.make<Lease.Lease>()
    yield* Effect.forkScoped(
      Effect.scoped(Effect.andThen(
        Effect.flatMap(Lock.acquire(name, options), (lease) => Deferred.succeed(leased, lease)),
        Effect.never
      )).pipe(Effect.provide(layer))
    )
    return yield* Deferred.await(leased)
  })

/**
 * Process `layer` acquires `name`, holds it while the TestClock moves `holdMs` on (its first renew goes a heartbeat
 * in, `Random` being fixed), and hands it off. Returns the hand-off and the lease.
 */
const handedOff = (
  layer: Layer.Layer<LockStore.LockStore>,
  name: string,
  holdMs: number,
  options: Lock.LockOptions = { lease: "30 seconds" }
) =>
  Effect.gen(function*() {
    const go = yield* Deferred.make<void>()
    const holder = yield* forkChild(
      Effect.scoped(Effect.gen(function*() {
        const lease = yield* Lock.acquire(name, options)
        yield* Deferred.await(go)
        const handoff = yield* Lock.handOff(lease)
        return { lease, handoff }
      })).pipe(Effect.provide(layer))
    )
    yield* settle
    yield* TestClock.adjust(holdMs)
    yield* Deferred.succeed(go, undefined)
    return yield* Fiber.join(holder)
  })

describe("Lock.handOff and Lock.resume", () => {
  it.effect("the resumed lease keeps the fence under a new owner, and no third process gets in at any instant in between", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const [a, b, c] = yield* Effect.all([probe(backing), probe(backing), probe(backing)])
      // Acquired at 0, renewed at 10 s (lease 30 s), handed off at 12 s.
      const { handoff, lease } = yield* handedOff(a.layer, "job", 12_000)
      expect(handoff).toEqual({
        _tag: "LeaseHandoff",
        name: "job",
        owner: lease.owner,
        fence: lease.fence,
        holder: lease.holder,
        leaseMs: 30_000,
        leaseUntil: 40_000
      })
      expect(yield* lease.status).toEqual({ _tag: "HandedOff" })
      expect(yield* lease.isHeld).toBe(false)
      // The lease still shows as plain fields.
      expect(JSON.parse(JSON.stringify(lease))).toMatchObject({ name: "job", fence: handoff.fence })
      // The handing-off process's scope has closed: it released nothing, and renews no more.
      expect(a.calls).toMatchObject({ renew: 1, release: 0 })

      // A third process, with a clock that agrees, is refused from the hand-off to the last instant of the lease plus
      // the skew bound (10 s): leaseUntil + maxClockSkew = 50 s.
      const third = Effect.scoped(Lock.acquire("job")).pipe(Effect.provide(c.layer), outcome)
      for (const at of [12_000, 20_000, 39_999, 40_000, 45_000, 49_999]) {
        yield* TestClock.setTime(at)
        const attempt = yield* third
        expect(attempt._tag === "Failure" && attempt.failure._tag).toBe("LockNotAcquired")
      }
      // The resumer's clock is 10 s behind (within the bound): for it the lease has 1 ms left.
      const resumed = yield* Effect.gen(function*() {
        const lease = yield* Lock.resume(handoff)
        const status = yield* lease.status
        return { owner: lease.owner, fence: lease.fence, holder: lease.holder, status }
      }).pipe(Effect.scoped, Effect.provide(b.layer), withClockOffset(-10_000), forkChild)
      yield* settle
      const held = yield* Fiber.join(resumed)
      expect(held).toMatchObject({ fence: handoff.fence, holder: handoff.holder, status: { _tag: "Held" } })
      // A new owner id: whatever still carries the handed-off one (a late write, a second resume) changes nothing.
      expect(held.owner).not.toBe(handoff.owner)
      // One write, the renew; and the release when its scope closed.
      expect(b.calls).toMatchObject({ tryAcquire: 0, renew: 1, release: 1 })
      expect(c.calls.tryAcquire).toBe(6)
      expect((yield* record(backing, "job")).fence).toBe(handoff.fence)
    }).pipe(withFixedRandom([0])))

  it.effect("the resumed lease renews on its heartbeat and is released when its scope closes", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const [a, b, c] = yield* Effect.all([probe(backing), probe(backing), probe(backing)])
      const { handoff } = yield* handedOff(a.layer, "renewed", 5_000)
      yield* TestClock.setTime(20_000)
      const done = yield* Deferred.make<void>()
      const fiber = yield* forkChild(
        Effect.scoped(Effect.andThen(Lock.resume(handoff), Deferred.await(done))).pipe(Effect.provide(b.layer))
      )
      yield* settle
      // Resumed at 20 s: the store's lease runs to 50 s; it renews at 30, 40, 50 and 60 s.
      expect((yield* record(backing, "renewed")).leaseUntil).toBe(50_000)
      yield* TestClock.adjust("45 seconds")
      expect(b.calls.renew).toBe(5)
      expect((yield* record(backing, "renewed")).leaseUntil).toBe(90_000)
      const third = yield* outcome(Effect.scoped(Lock.acquire("renewed")).pipe(Effect.provide(c.layer)))
      expect(third._tag).toBe("Failure")
      yield* Deferred.succeed(done, undefined)
      yield* Fiber.join(fiber)
      expect(b.calls.release).toBe(1)
      expect((yield* record(backing, "renewed")).owner).toBeUndefined()
      // Free again: the next acquisition gets the next fence.
      const next = yield* Effect.scoped(Lock.acquire("renewed")).pipe(Effect.provide(c.layer))
      expect(next.fence).toBe(handoff.fence + 1)
    }).pipe(withFixedRandom([0])))

  it.effect("the handing-off process's other sections are stopped, and its scope's close writes nothing", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const a = yield* probe(backing)
      const result = yield* Effect.gen(function*() {
        const lease = yield* Lock.acquire("stopped")
        // A section of this process re-entered the lease in a fiber of its own.
        const borrower = yield* forkChild(Lock.withLock("stopped", Effect.never))
        yield* settle
        const handoff = yield* Lock.handOff(lease)
        const borrowed = yield* Fiber.await(borrower)
        // The handing-off fiber goes on (to send the value); re-entering now goes to the store, which refuses.
        const again = yield* outcome(Effect.scoped(Lock.acquire("stopped")))
        return { handoff, borrowed, again }
      }).pipe(Effect.scoped, Effect.provide(a.layer))
      const lost = failureOf(result.borrowed)
      expect(lost).toBeInstanceOf(LockError.LockLost)
      expect(lost._tag === "LockLost" && lost.reason).toBe("handedOff")
      expect(lost.message).toContain("handed off")
      expect(result.again._tag === "Failure" && result.again.failure._tag).toBe("LockNotAcquired")
      expect(a.calls).toMatchObject({ tryAcquire: 2, renew: 0, release: 0 })
      expect((yield* record(backing, "stopped")).owner).toBe(result.handoff.owner)
      // Nothing more from this process while the lease runs out.
      yield* TestClock.adjust("1 minute")
      expect(a.calls).toMatchObject({ tryAcquire: 2, renew: 0, release: 0 })
    }))

  it.effect("a withLock section whose lease another fiber hands off fails with LockLost handedOff", () =>
    Effect.gen(function*() {
      const process = yield* probe(sharedMemory())
      const leased = yield* Deferred.make<Lease.Lease>()
      const section = Effect.scoped(Effect.gen(function*() {
        // Re-entry hands the section the lease its withLock holds.
        yield* Deferred.succeed(leased, yield* Lock.acquire("section"))
        return yield* Effect.never
      }))
      const fiber = yield* forkChild(Lock.withLock("section", section).pipe(Effect.provide(process.layer)))
      const handoff = yield* Lock.handOff(yield* Deferred.await(leased))
      const error = failureOf(yield* Fiber.await(fiber))
      expect(error._tag === "LockLost" && error.reason).toBe("handedOff")
      expect(error._tag === "LockLost" && error.fence).toBe(handoff.fence)
      expect(process.calls.release).toBe(0)
    }))

  it.effect("a withLock section may hand its own lease off and return the value; the lock stays held", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const [a, b] = yield* Effect.all([probe(backing), probe(backing)])
      const handoff = yield* Lock.withLock("own", Effect.scoped(Effect.flatMap(Lock.acquire("own"), Lock.handOff)))
        .pipe(Effect.provide(a.layer))
      expect(a.calls).toMatchObject({ tryAcquire: 1, release: 0 })
      expect((yield* record(backing, "own")).owner).toBe(handoff.owner)
      // Pipeable and data-first, like withLock.
      const first = yield* Effect.succeed("resumed").pipe(
        Lock.withResumed(handoff, { lease: "30 seconds" }),
        Effect.provide(b.layer)
      )
      expect(first).toBe("resumed")
      expect(b.calls).toMatchObject({ renew: 1, release: 1 })
      const again = yield* outcome(Lock.withResumed(handoff, Effect.void).pipe(Effect.provide(b.layer)))
      // Released by the first: the second finds the lock free.
      expect(again._tag === "Failure" && again.failure._tag === "LockLost" && again.failure.reason).toBe("freed")
    }))

  it.effect("the process's queue moves on: its waiters go to the store and get in only once the lease is free", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const [a, b] = yield* Effect.all([probe(backing), probe(backing)])
      let waiterInAt: number | undefined
      const go = yield* Deferred.make<void>()
      const handing = yield* forkChild(
        Effect.scoped(Effect.gen(function*() {
          const lease = yield* Lock.acquire("queue", { lease: "30 seconds" })
          yield* Deferred.await(go)
          return yield* Lock.handOff(lease)
        })).pipe(Effect.provide(a.layer))
      )
      yield* settle
      // Another fiber of the same process waits in its local queue, without a store call.
      const waiter = yield* forkChild(
        Lock.withLock("queue", Effect.flatMap(now, (t) => Effect.sync(() => waiterInAt = t)), { wait: "forever" })
          .pipe(Effect.provide(a.layer))
      )
      yield* settle
      expect(a.calls.tryAcquire).toBe(1)
      yield* TestClock.adjust("1 second")
      yield* Deferred.succeed(go, undefined)
      const handoff = yield* Fiber.join(handing)
      yield* settle
      // The waiter is the head now, and asks the store, which refuses it.
      expect(a.calls.tryAcquire).toBe(2)
      const resumedFor = yield* Deferred.make<void>()
      const resumer = yield* forkChild(
        Effect.scoped(Effect.andThen(Lock.resume(handoff), Deferred.await(resumedFor))).pipe(Effect.provide(b.layer))
      )
      yield* TestClock.adjust("20 seconds")
      expect(waiterInAt).toBeUndefined()
      // It goes on polling: a read before each write after a conflict.
      expect(a.calls.tryAcquire + a.calls.inspect).toBeGreaterThan(2)
      yield* Deferred.succeed(resumedFor, undefined)
      yield* Fiber.join(resumer)
      yield* TestClock.adjust("5 seconds")
      yield* Fiber.join(waiter)
      expect(waiterInAt).toBeGreaterThanOrEqual(21_000)
    }))

  it.effect("a resume does not wait behind a fiber of its process that is acquiring the name", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const [a, b] = yield* Effect.all([probe(backing), probe(backing)])
      const { handoff } = yield* handedOff(a.layer, "beside", 1_000)
      let acquirerInAt: number | undefined
      // A fiber of the resuming process waits in the store for the very lease it is about to resume.
      const acquirer = yield* forkChild(
        Lock.withLock("beside", Effect.flatMap(now, (t) => Effect.sync(() => acquirerInAt = t)), { wait: "forever" })
          .pipe(Effect.provide(b.layer))
      )
      yield* settle
      yield* TestClock.adjust("2 seconds")
      const release = yield* Deferred.make<void>()
      const resumer = yield* forkChild(
        Effect.scoped(Effect.andThen(Lock.resume(handoff), Deferred.await(release))).pipe(Effect.provide(b.layer))
      )
      yield* settle
      // Resumed at once, without waiting for the acquirer.
      expect(b.calls.renew).toBe(1)
      expect((yield* record(backing, "beside")).leaseUntil).toBe(33_000)
      yield* TestClock.adjust("10 seconds")
      expect(acquirerInAt).toBeUndefined()
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(resumer)
      yield* TestClock.adjust("5 seconds")
      yield* Fiber.join(acquirer)
      expect(acquirerInAt).toBeGreaterThanOrEqual(13_000)
    }).pipe(withFixedRandom([0])))

  it.effect("a renew in flight at the hand-off is waited for, and the hand-off's leaseUntil is the one it set", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const a = yield* probe(backing)
      const go = yield* Deferred.make<void>()
      const handing = yield* forkChild(
        Effect.scoped(Effect.gen(function*() {
          const lease = yield* Lock.acquire("inflight", { lease: "30 seconds" })
          yield* Deferred.await(go)
          return yield* Lock.handOff(lease)
        })).pipe(Effect.provide(a.layer))
      )
      yield* settle
      yield* a.hold("renew", "before")
      yield* TestClock.adjust("10 seconds")
      yield* a.held
      yield* Deferred.succeed(go, undefined)
      yield* TestClock.adjust("2 seconds")
      // The hand-off waits for the renew's answer.
      expect(Option.isNone(yield* poll(handing))).toBe(true)
      yield* a.open
      const handoff = yield* Fiber.join(handing)
      // Counted from just before the renew was sent (at 10 s).
      expect(handoff.leaseUntil).toBe(40_000)
      expect((yield* record(backing, "inflight")).leaseUntil).toBe(42_000)
      yield* TestClock.adjust("1 minute")
      expect(a.calls).toMatchObject({ renew: 1, release: 0 })
    }).pipe(withFixedRandom([0])))

  it.effect("a lease lost while its renew is in flight is not handed off: the hand-off fails with the loss", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const [a, c] = yield* Effect.all([probe(backing), probe(backing)])
      // Handed off by a fiber that is not the lease's holder: a loss interrupts holders.
      const lease = yield* heldElsewhere(a.layer, "lostInFlight", { lease: "30 seconds" })
      yield* a.hold("renew", "before")
      yield* TestClock.adjust("10 seconds")
      yield* a.held
      const handing = yield* forkChild(outcome(Lock.handOff(lease)))
      yield* settle
      // An operator frees it and another process takes it while the renew is held.
      yield* backing.forceRelease("lostInFlight")
      const thief = yield* Lock.acquire("lostInFlight", { holder: "thief" }).pipe(Effect.provide(c.layer))
      yield* a.open
      const result = yield* Fiber.join(handing)
      expect(result._tag === "Failure" && result.failure.reason).toBe("stolen")
      expect(result._tag === "Failure" && result.failure.by?.owner).toBe(thief.owner)
      expect(yield* lease.status).toMatchObject({ _tag: "Lost" })
    }).pipe(Effect.scoped, withFixedRandom([0])))

  it.effect("resuming after leaseUntil fails with LockLost expired, with no write", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const [a, b] = yield* Effect.all([probe(backing), probe(backing)])
      const { handoff } = yield* handedOff(a.layer, "late", 12_000)
      // A resumer whose clock is 1 s ahead refuses 1 s early.
      yield* TestClock.setTime(handoff.leaseUntil - 1_000)
      const ahead = yield* Effect.flip(
        Effect.scoped(Lock.resume(handoff)).pipe(Effect.provide(b.layer), withClockOffset(1_000))
      )
      expect(ahead._tag === "LockLost" && ahead.reason).toBe("expired")
      yield* TestClock.setTime(handoff.leaseUntil)
      const error = yield* Effect.flip(Effect.scoped(Lock.resume(handoff)).pipe(Effect.provide(b.layer)))
      expect(error._tag === "LockLost" && error.reason).toBe("expired")
      expect(error._tag === "LockLost" && error.fence).toBe(handoff.fence)
      // No write; the store still names the handing-off owner (nobody took it), but the resumer's clock says it ran out.
      expect(b.calls.renew).toBe(0)
      expect((yield* record(backing, "late")).owner).toBe(handoff.owner)
    }).pipe(withFixedRandom([0])))

  it.effect("resuming a lease an operator freed fails with LockLost freed; one another process took, stolen, naming it", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const [a, b, c] = yield* Effect.all([probe(backing), probe(backing), probe(backing)])
      const { handoff } = yield* handedOff(a.layer, "taken", 1_000)
      // Force-released: the store has nobody.
      yield* backing.forceRelease("taken")
      const freed = yield* Effect.flip(Effect.scoped(Lock.resume(handoff)).pipe(Effect.provide(b.layer)))
      expect(freed._tag === "LockLost" && freed.reason).toBe("freed")
      expect(freed._tag === "LockLost" && freed.by).toBeUndefined()
      expect(freed.message).toContain("the store shows it free")
      // Taken by another process.
      const { taken, thief } = yield* Effect.gen(function*() {
        const thief = yield* Lock.acquire("taken", { holder: "thief" })
        const taken = yield* Effect.flip(Effect.scoped(Lock.resume(handoff)).pipe(Effect.provide(b.layer)))
        return { taken, thief }
      }).pipe(Effect.scoped, Effect.provide(c.layer))
      expect(taken._tag === "LockLost" && taken.reason).toBe("stolen")
      expect(taken._tag === "LockLost" && taken.by?.owner).toBe(thief.owner)
      expect(taken._tag === "LockLost" && taken.by?.holder).toBe("thief")
      expect(thief.fence).toBe(handoff.fence + 1)
      expect(taken.message).toContain("thief")
      // One write each, no release.
      expect(b.calls).toMatchObject({ renew: 2, release: 0 })
    }))

  it.effect("withResumed: the program is interrupted on loss, with the deadline counted from before the write", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const [a, b] = yield* Effect.all([probe(backing), probe(backing)])
      const { handoff } = yield* handedOff(a.layer, "resumedLoss", 1_000)
      yield* TestClock.setTime(10_000)
      // The resuming write takes 2 s to answer; then every renew fails.
      yield* b.hold("renew", "after")
      let interruptedAt: number | undefined
      const program = Effect.sync(() => b.failing("renew", true)).pipe(
        Effect.andThen(Effect.never),
        Effect.onInterrupt(() => Effect.map(now, (t) => interruptedAt = t))
      )
      const fiber = yield* forkChild(Lock.withResumed(handoff, program).pipe(Effect.provide(b.layer)))
      yield* b.held
      yield* TestClock.adjust("2 seconds")
      yield* b.open
      // Lease 30 s, safety margin 3 s: lost 27 s after the write was sent (10 s), not after its answer (12 s).
      yield* TestClock.setTime(36_999)
      expect(Option.isNone(yield* poll(fiber))).toBe(true)
      yield* TestClock.adjust(1)
      const error = failureOf(yield* Fiber.await(fiber))
      expect(error._tag === "LockLost" && error.reason).toBe("expired")
      expect(interruptedAt).toBe(37_000)
    }))

  it.effect("withResumed: a steal interrupts the program at the next renew", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const [a, b, c] = yield* Effect.all([probe(backing), probe(backing), probe(backing)])
      const { handoff } = yield* handedOff(a.layer, "resumedSteal", 1_000)
      const fiber = yield* forkChild(Lock.withResumed(handoff, Effect.never).pipe(Effect.provide(b.layer)))
      yield* settle
      yield* backing.forceRelease("resumedSteal")
      const thief = yield* Lock.acquire("resumedSteal").pipe(Effect.provide(c.layer))
      yield* TestClock.adjust("10 seconds")
      const error = failureOf(yield* Fiber.await(fiber))
      expect(error._tag === "LockLost" && error.reason).toBe("stolen")
      expect(error._tag === "LockLost" && error.by?.owner).toBe(thief.owner)
      expect(b.calls.release).toBe(0)
    }).pipe(Effect.scoped, withFixedRandom([0])))

  it.effect("the hand-off goes through its Schema as JSON and back; a malformed one is a LockConfigError", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const [a, b] = yield* Effect.all([probe(backing), probe(backing)])
      const { handoff } = yield* handedOff(a.layer, "json", 1_000)
      const text = Schema.encodeSync(LeaseHandoff.json)(handoff)
      expect(JSON.parse(text)).toEqual(handoff)
      const decoded = Schema.decodeUnknownSync(LeaseHandoff.json)(text)
      expect(decoded).toEqual(handoff)
      expect(Schema.decodeUnknownSync(LeaseHandoff.schema)(Schema.encodeSync(LeaseHandoff.schema)(handoff)))
        .toEqual(handoff)

      const malformed: ReadonlyArray<unknown> = [
        undefined,
        "a hand-off",
        { ...handoff, _tag: "Lease" },
        { ...handoff, owner: "" },
        { ...handoff, owner: undefined },
        { ...handoff, fence: -1 },
        { ...handoff, fence: 1.5 },
        { ...handoff, leaseMs: 0 },
        { ...handoff, leaseMs: 2 ** 31 },
        { ...handoff, leaseUntil: Number.NaN },
        { ...handoff, name: "" }
      ]
      for (const input of malformed) {
        const error = yield* Effect.flip(
          Effect.scoped(Lock.resume(input as LeaseHandoff.LeaseHandoff)).pipe(Effect.provide(b.layer))
        )
        expect(error._tag).toBe("LockConfigError")
        expect(error._tag === "LockConfigError" && error.option).toBe("handoff")
        expect(error.message).toContain("not a lease hand-off")
      }
      // The lease is the hand-off's; other options are checked as for an acquire.
      const lease = yield* Effect.flip(
        Effect.scoped(Lock.resume(handoff, { lease: "10 seconds" })).pipe(Effect.provide(b.layer))
      )
      expect(lease._tag === "LockConfigError" && lease.option).toBe("lease")
      const heartbeat = yield* Effect.flip(
        Effect.scoped(Lock.resume(handoff, { heartbeat: "40 seconds" })).pipe(Effect.provide(b.layer))
      )
      expect(heartbeat._tag === "LockConfigError" && heartbeat.option).toBe("heartbeat")
      // A name the store can not key.
      const tiny = LockStore.makeMemory({ maxNameBytes: 3 })
      const name = yield* Effect.flip(
        Effect.scoped(Lock.resume(handoff)).pipe(Effect.provideService(LockStore.LockStore, tiny))
      )
      expect(name._tag === "LockConfigError" && name.option).toBe("name")
      expect(b.calls.renew).toBe(0)
      // The decoded value resumes like the original.
      const resumed = yield* Effect.scoped(Lock.resume(decoded)).pipe(Effect.provide(b.layer))
      expect(resumed.fence).toBe(handoff.fence)
    }))

  it.effect("a hand-off whose owner or holder holds a lone surrogate is a LockConfigError, before any store call", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const [a, b] = yield* Effect.all([probe(backing), probe(backing)])
      const { handoff } = yield* handedOff(a.layer, "surrogates", 1_000)
      const lone: ReadonlyArray<readonly [string, LeaseHandoff.LeaseHandoff]> = [
        ["owner", { ...handoff, owner: handoff.owner.slice(0, -1) + "\uD800" }],
        ["owner", { ...handoff, owner: "\uDC00" + handoff.owner.slice(1) }],
        ["holder", { ...handoff, holder: "worker \uD83D" }],
        ["holder", { ...handoff, holder: "\uDE00" }]
      ]
      for (const [field, input] of lone) {
        // The schema takes any string: the check is the resume's own.
        expect(Option.isSome(Schema.decodeUnknownOption(LeaseHandoff.schema)(input))).toBe(true)
        for (
          const resumed of [
            Effect.scoped(Lock.resume(input)),
            Lock.withResumed(input, Effect.void),
            Effect.void.pipe(Lock.withResumed(input))
          ]
        ) {
          const error = yield* Effect.flip(resumed.pipe(Effect.provide(b.layer)))
          expect(error).toMatchObject({ _tag: "LockConfigError", option: "handoff" })
          expect(error.message).toContain(`the hand-off's ${field} is not well-formed Unicode`)
        }
      }
      expect(Object.values(b.calls).every((n) => n === 0)).toBe(true)
      // The hand-off as made still resumes: nothing was written for the refused ones.
      const lease = yield* Effect.scoped(Lock.resume(handoff)).pipe(Effect.provide(b.layer))
      expect(lease.fence).toBe(handoff.fence)
    }).pipe(withFixedRandom([0])))

  it.effect("a lease is handed off once; released or lost, it is not handed off at all", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const [a, c] = yield* Effect.all([probe(backing), probe(backing)])
      const { lease } = yield* handedOff(a.layer, "twice", 1_000)
      const twice = yield* Effect.flip(Lock.handOff(lease))
      expect(twice.reason).toBe("handedOff")

      const released = yield* Effect.scoped(Lock.acquire("released")).pipe(Effect.provide(a.layer))
      const afterRelease = yield* Effect.flip(Lock.handOff(released))
      expect(afterRelease.reason).toBe("released")

      const held = yield* heldElsewhere(a.layer, "lost")
      yield* backing.forceRelease("lost")
      yield* Effect.scoped(Lock.acquire("lost")).pipe(Effect.provide(c.layer))
      yield* TestClock.adjust("30 seconds")
      const afterLoss = yield* Effect.flip(Lock.handOff(held))
      // Taken by another holder, and released since: free when the next renew looked.
      expect(afterLoss.reason).toBe("freed")
      // A value that is not a lease this library made.
      const fake = { ...held } as Lease.Lease
      expect(Exit.isFailure(yield* Effect.exit(Lock.handOff(fake)))).toBe(true)
    }).pipe(Effect.scoped))

  it.effect("a resume whose answer is lost after it applied gives the moved lease back: the lock is free again", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const [a, c] = yield* Effect.all([probe(backing), probe(backing)])
      const { handoff } = yield* handedOff(a.layer, "answer", 1_000)
      // The resuming write applies, and its answer never arrives.
      const unanswered = LockStore.intercept(backing, (operation, call) =>
        operation === "renew"
          ? Effect.andThen(
            call,
            Effect.fail(new LockError.LockStoreError({ operation: "renew", retryable: true, message: "no answer" }))
          )
          : call)
      const failed = yield* Effect.flip(
        Effect.scoped(Lock.resume(handoff)).pipe(Effect.provideService(LockStore.LockStore, unanswered))
      )
      expect(failed._tag).toBe("LockStoreError")
      yield* settle
      // Nobody but the failed resume knew the new owner: it released, so the lock is not stuck until the lease ends.
      expect(Option.getOrThrow(yield* backing.inspect("answer")).owner).toBeUndefined()
      const next = yield* Effect.scoped(Effect.map(Lock.acquire("answer"), (lease) => lease.fence)).pipe(
        Effect.provide(c.layer)
      )
      expect(next).toBe(handoff.fence + 1)
    }))

  it.effect("a hand-off is resumed once, anywhere; a resumed lease hands off again, with the same fence", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const [a, b, c] = yield* Effect.all([probe(backing), probe(backing), probe(backing)])
      const { handoff } = yield* handedOff(a.layer, "chain", 1_000)
      const { again, second } = yield* Effect.gen(function*() {
        const lease = yield* Lock.resume(handoff)
        const second = yield* Effect.flip(Effect.scoped(Lock.resume(handoff)))
        // In another process too: a duplicated hand-off finds the owner it was moved to.
        const elsewhere = yield* Effect.flip(Effect.scoped(Lock.resume(handoff)).pipe(Effect.provide(c.layer)))
        expect(elsewhere._tag === "LockLost" && [elsewhere.reason, elsewhere.by?.owner]).toEqual([
          "stolen",
          lease.owner
        ])
        // A hand-off of a resumed lease: the next process goes on with the same owner and fence.
        yield* TestClock.adjust("1 second")
        return { second, again: yield* Lock.handOff(lease) }
      }).pipe(Effect.scoped, Effect.provide(b.layer))
      expect(second._tag === "LockLost" && second.reason).toBe("stolen")
      expect(b.calls).toMatchObject({ renew: 2, release: 0 })
      // Resumed at 1 s: its lease runs to 31 s.
      expect(again).toMatchObject({ fence: handoff.fence, leaseUntil: 31_000 })
      const last = yield* Effect.scoped(Lock.resume(again)).pipe(Effect.provide(c.layer))
      expect(last.fence).toBe(handoff.fence)
      expect(last.owner).not.toBe(again.owner)
      expect(c.calls).toMatchObject({ renew: 2, release: 1 })
    }))

  for (const point of ["before", "after"] as const) {
    it.effect(
      `a hand-off racing a renew (held ${point} the store applies it) waits for it: nothing lands later, 60 rounds`,
      () =>
        Effect.gen(function*() {
          for (let round = 0; round < 60; round++) {
            const backing = sharedMemory()
            const [a, b] = yield* Effect.all([probe(backing), probe(backing)])
            const name = `race-${round}`
            const t0 = yield* now
            const lease = yield* heldElsewhere(a.layer, name, { lease: "3 seconds" })
            yield* a.hold("renew", point)
            // The first renew is due at 1 s; the hand-off lands around it.
            yield* TestClock.adjust(round % 3 === 0 ? 999 : 1_000)
            const handing = yield* forkChild(Lock.handOff(lease))
            yield* yieldNow.pipe(repeatTimes(round % 7))
            yield* a.open
            const handoff = yield* Fiber.join(handing)
            const renews = a.calls.renew
            expect(renews).toBeLessThanOrEqual(1)
            // The hand-off counts from the last renew it saw answered.
            expect(handoff.leaseUntil - t0).toBe(renews === 1 ? 4_000 : 3_000)
            yield* TestClock.adjust(500)
            yield* Effect.scoped(Lock.resume(handoff)).pipe(Effect.provide(b.layer))
            yield* settle
            yield* TestClock.adjust("10 seconds")
            // Nothing of the handing-off process after the hand-off: the resumer's release stands.
            expect(a.calls).toMatchObject({ renew: renews, release: 0 })
            expect((yield* record(backing, name)).owner).toBeUndefined()
          }
        }).pipe(Effect.scoped, withFixedRandom([0])),
      60_000
    )
  }

  it.effect("a hand-off racing the close of the lease's scope, a renew in flight: one wins, the queue is left once", () =>
    Effect.gen(function*() {
      const outcomes = new Set<string>()
      for (let round = 0; round < 40; round++) {
        const backing = sharedMemory()
        const [a, b] = yield* Effect.all([probe(backing), probe(backing)])
        const name = `close-${round}`
        const leased = yield* Deferred.make<Lease.Lease>()
        const close = yield* Deferred.make<void>()
        const holder = yield* forkChild(
          Effect.scoped(Effect.andThen(
            Effect.flatMap(Lock.acquire(name, { lease: "3 seconds" }), (lease) => Deferred.succeed(leased, lease)),
            Deferred.await(close)
          )).pipe(Effect.provide(a.layer))
        )
        const lease = yield* Deferred.await(leased)
        yield* a.hold("renew", round % 4 < 2 ? "before" : "after")
        yield* TestClock.adjust(1_000)
        yield* a.held
        const yields = yieldNow.pipe(repeatTimes(round % 5))
        // Either the hand-off begins first (and waits for the renew), or the close does (and abandons it).
        const handOffFirst = round % 2 === 0
        if (!handOffFirst) yield* Deferred.succeed(close, undefined)
        yield* yields
        const handing = yield* forkChild(outcome(Lock.handOff(lease)))
        yield* yields
        if (handOffFirst) yield* Deferred.succeed(close, undefined)
        yield* yields
        yield* a.open
        const result = yield* Fiber.join(handing)
        yield* Fiber.await(holder)
        const status = (yield* lease.status)._tag
        if (result._tag === "Success") {
          outcomes.add("handedOff")
          expect(status).toBe("HandedOff")
          expect(a.calls.release).toBe(0)
          expect((yield* Effect.scoped(Lock.resume(result.success)).pipe(Effect.provide(b.layer))).fence).toBe(
            lease.fence
          )
        } else {
          outcomes.add("released")
          expect(result.failure.reason).toBe("released")
          expect(status).toBe("Released")
          expect(a.calls.release).toBe(1)
        }
        // The process's queue was left once: the next acquire there gets in at once, and so does one after it.
        yield* Effect.scoped(Lock.acquire(name)).pipe(Effect.provide(a.layer))
        yield* Effect.scoped(Lock.acquire(name)).pipe(Effect.provide(a.layer))
      }
      expect(outcomes).toEqual(new Set(["handedOff", "released"]))
    }))
})
