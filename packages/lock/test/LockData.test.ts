// Lease.updateData: one conditional write that sets the data and extends the lease, in turn with the heartbeat.
import { describe, expect, it } from "@effect/vitest"
import { type Lease, Lock, LockError, LockRecord, LockStore } from "@leasehold/lock"
import { Clock, Deferred, Effect, Exit, Fiber, Layer, Option } from "effect"
import { forkChild, hasInterrupts, makeClock, poll, TestClock, withClock, withFixedRandom } from "./effectLine.js"
import { settle, sharedMemory } from "./support.js"

/** The first renew at the latest point it may go: one heartbeat after the acquire. */
const latestFirstRenew = withFixedRandom([0])

/** A lease of 3 s: local deadline 2.7 s after a write was sent, a heartbeat a second, at risk with 1 s left. */
const options = { lease: "3 seconds", heartbeat: "1 second", safetyMargin: "300 millis" } as const

/** A clock stopped at `millis`: the time a write read when it was sent. */
const stoppedAt = (millis: number): Clock.Clock =>
  makeClock(() => millis, () => BigInt(millis) * 1_000_000n, () => Effect.void)

/**
 * A process over `backing` whose heartbeat renews (renews without `setData`) and data updates (renews with it) can be
 * told apart: counted, held on their way to the store, or (renews only) failed. As in DynamoDB, a write's lease counts
 * from when it was sent: a held write applies the time it read before it was held.
 */
const splitRenews = (backing: LockStore.LockStore) => {
  const sent = { renews: 0, updates: 0 }
  const applied: Array<"renew" | "update"> = []
  let failRenews = false
  let holdRenews: Deferred.Deferred<void> | undefined
  let holdUpdates: Deferred.Deferred<void> | undefined
  const view = LockStore.processView(backing)
  const store: LockStore.LockStore = {
    ...view,
    renew: (request) =>
      Effect.suspend(() => {
        const kind = request.setData === undefined ? "renew" : "update"
        if (kind === "renew") sent.renews++
        else sent.updates++
        if (kind === "renew" && failRenews) {
          return Effect.fail(
            new LockError.LockStoreError({ operation: "renew", retryable: true, message: "injected renew failure" })
          )
        }
        const gate = kind === "renew" ? holdRenews : holdUpdates
        return Effect.flatMap(Clock.currentTimeMillis, (sentAt) => {
          const apply = Effect.tap(
            view.renew(request).pipe(withClock(stoppedAt(sentAt))),
            () => Effect.sync(() => applied.push(kind))
          )
          return gate === undefined ? apply : Effect.andThen(Deferred.await(gate), apply)
        })
      })
  }
  return {
    store,
    layer: Layer.succeed(LockStore.LockStore, store),
    sent,
    applied,
    failRenews: (on: boolean) => {
      failRenews = on
    },
    holdRenews: Effect.map(Deferred.make<void>(), (gate) => {
      holdRenews = gate
      return Deferred.succeed(gate, undefined).pipe(Effect.andThen(Effect.sync(() => holdRenews = undefined)))
    }),
    holdUpdates: Effect.map(Deferred.make<void>(), (gate) => {
      holdUpdates = gate
      return Deferred.succeed(gate, undefined).pipe(Effect.andThen(Effect.sync(() => holdUpdates = undefined)))
    })
  }
}

const record = (store: LockStore.LockStore, name: string) => Effect.map(store.inspect(name), Option.getOrThrow)

/**
 * A lease held by a fiber of its own, which its loss interrupts (the test's fiber goes on); `release` closes its
 * scope.
 */
const held = (name: string, lockOptions: Lock.LockOptions) =>
  Effect.gen(function*() {
    const leaseOf = yield* Deferred.make<Lease.Lease>()
    const fiber = yield* forkChild(
      Effect.scoped(Effect.andThen(
        Effect.flatMap(Lock.acquire(name, lockOptions), (lease) => Deferred.succeed(leaseOf, lease)),
        Effect.never
      ))
    )
    const lease = yield* Deferred.await(leaseOf)
    return { lease, fiber, release: Fiber.interrupt(fiber) }
  })

describe("Lease.updateData", () => {
  it.effect("sets and removes the data in one write that extends the lease and changes the version", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const process = splitRenews(backing)
      const lease = yield* Lock.acquire("progress", { ...options, data: "step 1" }).pipe(Effect.provide(process.layer))
      const acquired = yield* record(backing, "progress")
      yield* TestClock.adjust("500 millis")
      yield* lease.updateData("step 2")
      const updated = yield* record(backing, "progress")
      expect(process.sent).toEqual({ renews: 0, updates: 1 })
      expect([lease.data, updated.data]).toEqual(["step 2", "step 2"])
      expect(updated.leaseUntil).toBe((yield* Clock.currentTimeMillis) + 3_000)
      expect(updated.version).toBe(acquired.version + 1)
      expect([updated.owner, updated.fence, updated.acquiredAt]).toEqual([lease.owner, lease.fence, 0])
      // The acquiring write's record stays as it was.
      expect(lease.record.data).toBe("step 1")
      yield* lease.updateData(undefined)
      expect([lease.data, (yield* record(backing, "progress")).data]).toEqual([undefined, undefined])
      // A heartbeat leaves the data as it is.
      yield* lease.updateData("step 3")
      yield* TestClock.adjust("1 second")
      expect(process.sent.renews).toBe(1)
      expect((yield* record(backing, "progress")).data).toBe("step 3")
    }).pipe(Effect.scoped, latestFirstRenew))

  it.effect("is visible to another process, and gone once the lock is released", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const other = LockStore.processView(shared)
      yield* Effect.scoped(Effect.gen(function*() {
        const lease = yield* Lock.acquire("visible", { data: "started" })
        yield* lease.updateData("half way")
        expect((yield* record(other, "visible")).data).toBe("half way")
        const refused = yield* Effect.flip(
          Effect.scoped(Lock.acquire("visible")).pipe(Effect.provideService(LockStore.LockStore, other))
        )
        expect(refused._tag === "LockNotAcquired" && refused.holder?.data).toBe("half way")
      })).pipe(Effect.provide(LockStore.layerProcess(shared)))
      expect((yield* record(other, "visible")).data).toBeUndefined()
    }))

  it.effect("keeps the lease past its first deadline with every renew failing, and it ends a lease after the last", () =>
    Effect.gen(function*() {
      const process = splitRenews(sharedMemory())
      process.failRenews(true)
      const { lease } = yield* held("updates-only", options).pipe(Effect.provide(process.layer))
      // At risk with 1 s left (at 1.7 s): the first failed renews do not end it.
      yield* TestClock.adjust("2 seconds")
      expect((yield* lease.status)._tag).toBe("AtRisk")
      yield* lease.updateData("at 2 s")
      expect((yield* lease.status)._tag).toBe("Held")
      yield* TestClock.adjust("2 seconds")
      yield* lease.updateData("at 4 s")
      yield* TestClock.adjust("2 seconds")
      yield* lease.updateData("at 6 s")
      // Far past the first deadline (2.7 s), on updates alone; the heartbeat kept failing.
      expect(process.sent.renews).toBeGreaterThan(3)
      yield* TestClock.adjust("2699 millis")
      expect(yield* lease.isHeld).toBe(true)
      // The last update was sent at 6 s: the deadline is 8.7 s.
      yield* TestClock.adjust("1 millis")
      const status = yield* lease.status
      expect(status._tag === "Lost" && status.error.reason).toBe("expired")
    }).pipe(Effect.scoped, latestFirstRenew))

  it.effect("after a loss, a release or the deadline fails with LockLost, and makes no write", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const process = splitRenews(backing)
      const thief = LockStore.processView(backing)

      // Stolen: the update itself finds another owner.
      const stolen = yield* Effect.scoped(Effect.gen(function*() {
        const lease = yield* Lock.acquire("stolen", options)
        yield* backing.forceRelease("stolen")
        const taken = yield* Lock.acquire("stolen", { holder: "thief" }).pipe(
          Effect.provideService(LockStore.LockStore, thief)
        )
        const error = yield* Effect.flip(lease.updateData("mine"))
        expect(error).toMatchObject({ _tag: "LockLost", reason: "stolen" })
        expect(error._tag === "LockLost" && error.by?.owner).toBe(taken.owner)
        const status = yield* lease.status
        expect(status._tag === "Lost" && status.error.message).toBe(error.message)
        // Once lost, no write is sent.
        const sent = process.sent.updates
        expect((yield* Effect.flip(lease.updateData("again"))).message).toBe(error.message)
        expect(process.sent.updates).toBe(sent)
        return lease
      })).pipe(Effect.provide(process.layer))
      expect(stolen.data).toBeUndefined()

      // Freed: an operator force-released it, and nobody holds it.
      yield* Effect.scoped(Effect.gen(function*() {
        const lease = yield* Lock.acquire("freed", options)
        yield* backing.forceRelease("freed")
        const error = yield* Effect.flip(lease.updateData("mine"))
        expect(error).toMatchObject({ _tag: "LockLost", reason: "freed", by: undefined })
        expect(error.message).toContain("the store shows it free")
      })).pipe(Effect.provide(process.layer))

      // Released: the scope closed.
      const releasing = yield* held("released", options).pipe(Effect.provide(process.layer))
      yield* releasing.release
      const released = releasing.lease
      const sent = process.sent.updates
      const error = yield* Effect.flip(released.updateData("too late"))
      expect(error).toMatchObject({ _tag: "LockLost", reason: "released" })
      expect(error.message).toContain("released while still in use")
      expect(process.sent.updates).toBe(sent)

      // Expired: every renew failed until the deadline.
      process.failRenews(true)
      const { fiber, lease } = yield* held("expired", options).pipe(Effect.provide(process.layer))
      yield* TestClock.adjust("2700 millis")
      expect(hasInterrupts(yield* Fiber.await(fiber))).toBe(true)
      const expired = yield* Effect.flip(lease.updateData("too late"))
      expect(expired).toMatchObject({ _tag: "LockLost", reason: "expired" })
      expect(process.sent.updates).toBe(sent)
    }).pipe(latestFirstRenew))

  it.effect("in flight when the lease ends, fails with LockLost at the deadline without waiting for the store", () =>
    Effect.gen(function*() {
      const process = splitRenews(sharedMemory())
      process.failRenews(true)
      const { lease } = yield* held("abandoned", options).pipe(Effect.provide(process.layer))
      const open = yield* process.holdUpdates
      yield* TestClock.adjust("2 seconds")
      const update = yield* forkChild(lease.updateData("never answered"))
      yield* settle
      expect(process.sent.updates).toBe(1)
      yield* TestClock.adjust("699 millis")
      expect(Option.isNone(yield* poll(update))).toBe(true)
      yield* TestClock.adjust("1 millis")
      const error = yield* Effect.flip(yield* Fiber.await(update))
      expect(error).toMatchObject({ _tag: "LockLost", reason: "expired" })
      expect(lease.data).toBeUndefined()
      yield* open
    }).pipe(Effect.scoped, latestFirstRenew))

  it.effect("data the store would refuse is a LockConfigError before any store call", () =>
    Effect.gen(function*() {
      const process = splitRenews(sharedMemory())
      const lease = yield* Lock.acquire("too-big", { ...options, data: "small" }).pipe(Effect.provide(process.layer))
      for (const data of ["x".repeat(LockRecord.maxDataBytes + 1), "lone \uD800"]) {
        const error = yield* Effect.flip(lease.updateData(data))
        expect(error).toMatchObject({ _tag: "LockConfigError", option: "data" })
      }
      expect(process.sent.updates).toBe(0)
      expect(lease.data).toBe("small")
      expect(yield* lease.isHeld).toBe(true)
    }).pipe(Effect.scoped))
})

describe("Lease.updateData and the heartbeat: one write at a time, the deadline only forward", () => {
  it.effect("an update waits for a renew in flight; a renew that falls due waits for an update in flight", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const process = splitRenews(backing)
      const lease = yield* Lock.acquire("turns", options).pipe(Effect.provide(process.layer))

      // The renew due at 1 s is held on its way to the store; an update at 1.2 s waits for it.
      const openRenew = yield* process.holdRenews
      yield* TestClock.adjust("1 second")
      expect(process.sent).toEqual({ renews: 1, updates: 0 })
      yield* TestClock.adjust("200 millis")
      const first = yield* forkChild(lease.updateData("after the renew"))
      yield* settle
      expect(process.sent.updates).toBe(0)
      yield* TestClock.adjust("100 millis")
      yield* openRenew
      yield* Fiber.join(first)
      expect(process.applied).toEqual(["renew", "update"])

      // An update held on its way at 1.5 s; the renew due at 2 s waits for it, as does an update at 2.1 s.
      const openUpdate = yield* process.holdUpdates
      yield* TestClock.adjust("200 millis")
      const second = yield* forkChild(lease.updateData("second"))
      yield* settle
      yield* TestClock.adjust("500 millis")
      yield* settle
      yield* TestClock.adjust("100 millis")
      const third = yield* forkChild(lease.updateData("third"))
      yield* settle
      expect(process.sent).toEqual({ renews: 1, updates: 2 })
      yield* TestClock.adjust("100 millis")
      yield* openUpdate
      yield* Fiber.join(second)
      yield* Fiber.join(third)
      yield* settle
      // First come, first served: the second update, the renew due at 2 s, the third update.
      expect(process.applied).toEqual(["renew", "update", "update", "renew", "update"])
      expect([lease.data, (yield* record(backing, "turns")).data]).toEqual(["third", "third"])
    }).pipe(Effect.scoped, latestFirstRenew))

  it.effect("a renew that waited behind an update does not move the deadline back; the store's lease covers it", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const process = splitRenews(backing)
      const { lease } = yield* held("forward", options).pipe(Effect.provide(process.layer))
      // The renew at 1 s goes through. An update at 1.5 s is held; an update queued at 1.7 s; the renew due at 2 s
      // queues behind both. At 2.2 s all three go, in that order: the renew sent last was due (and timed) at 2 s.
      yield* TestClock.adjust("1500 millis")
      const open = yield* process.holdUpdates
      const first = yield* forkChild(lease.updateData("first"))
      yield* settle
      yield* TestClock.adjust("200 millis")
      const second = yield* forkChild(lease.updateData("second"))
      yield* settle
      yield* TestClock.adjust("300 millis")
      yield* settle
      yield* TestClock.adjust("200 millis")
      yield* open
      yield* Fiber.join(first)
      yield* Fiber.join(second)
      yield* settle
      expect(process.applied).toEqual(["renew", "update", "update", "renew"])
      // The second update was sent at 2.2 s: the deadline is 4.9 s, though the last renew counts from 2 s (4.7 s).
      process.failRenews(true)
      const stored = yield* record(backing, "forward")
      expect(stored.data).toBe("second")
      expect(stored.leaseUntil).toBe(2_200 + 3_000)
      yield* TestClock.adjust("2699 millis")
      expect(yield* lease.isHeld).toBe(true)
      yield* TestClock.adjust("1 millis")
      const status = yield* lease.status
      expect(status._tag === "Lost" && status.error.reason).toBe("expired")
      // Lost locally at 4.9 s, while the store's lease lasts until 5.2 s: the safety margin, as after any renew.
      expect(stored.leaseUntil - (yield* Clock.currentTimeMillis)).toBe(300)
    }).pipe(Effect.scoped, latestFirstRenew))

  it.effect("a renew in flight can not land after an update and shorten the store's lease below the deadline", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const process = splitRenews(backing)
      const { lease } = yield* held("behind", options).pipe(Effect.provide(process.layer))
      // The renew sent at 1 s (its lease counting from 1 s) is slow to land; an update is wanted at 1.5 s.
      const open = yield* process.holdRenews
      yield* TestClock.adjust("1 second")
      yield* TestClock.adjust("500 millis")
      const update = yield* forkChild(lease.updateData("late"))
      yield* settle
      yield* TestClock.adjust("300 millis")
      yield* open
      yield* Fiber.join(update)
      yield* settle
      // Sent after the renew landed (1.8 s), the update is the last write: the store's lease ends at 4.8 s. Were it
      // sent at 1.5 s and landed first, the renew landing after would leave 4 s in the store against a 4.2 s deadline.
      process.failRenews(true)
      const stored = yield* record(backing, "behind")
      expect([stored.data, stored.leaseUntil]).toEqual(["late", 4_800])
      while (yield* lease.isHeld) yield* TestClock.adjust("10 millis")
      expect(yield* Clock.currentTimeMillis).toBe(4_500)
    }).pipe(Effect.scoped, latestFirstRenew))

  it.effect("many updates racing the heartbeat: the store's lease never ends before the local deadline", () =>
    Effect.gen(function*() {
      const backing = sharedMemory()
      const process = splitRenews(backing)
      const { lease } = yield* held("race", options).pipe(Effect.provide(process.layer))
      const updates: Array<Fiber.Fiber<void, unknown>> = []
      for (let step = 0; step < 60; step++) {
        // Updates and renews held in flight now and then, released a few steps later.
        const hold = step % 7 === 3
          ? yield* process.holdUpdates
          : step % 11 === 5
          ? yield* process.holdRenews
          : undefined
        updates.push(yield* forkChild(lease.updateData(`step ${step}`)))
        yield* TestClock.adjust(`${100 + (step % 5) * 90} millis`)
        if (hold !== undefined) {
          yield* TestClock.adjust("150 millis")
          yield* hold
        }
        yield* settle
        const stored = yield* record(backing, "race")
        const status = yield* lease.status
        expect(status._tag === "Held" || status._tag === "AtRisk").toBe(true)
        // The store's lease always covers what this process relies on: its own lease, less the margin.
        expect(stored.leaseUntil).toBeGreaterThanOrEqual((yield* Clock.currentTimeMillis) + 300)
      }
      for (const fiber of updates) expect(Exit.isSuccess(yield* Fiber.await(fiber))).toBe(true)
      expect(lease.data).toBe("step 59")
      expect((yield* record(backing, "race")).data).toBe("step 59")
      // With no more writes, the lease is lost locally no later than the store's lease ends, less the margin.
      process.failRenews(true)
      const stored = yield* record(backing, "race")
      while (yield* lease.isHeld) yield* TestClock.adjust("10 millis")
      expect(yield* Clock.currentTimeMillis).toBeLessThanOrEqual(stored.leaseUntil - 300)
    }).pipe(Effect.scoped, latestFirstRenew))
})
