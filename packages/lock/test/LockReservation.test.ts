import { describe, expect, it } from "@effect/vitest"
import { Lock, LockStore } from "@leasehold/lock"
import { Clock, Deferred, Effect, Fiber, Option } from "effect"
import { type DurationInput, forkChild, TestClock } from "./effectLine.js"
import { deadHolder, probe, repeatTimes, settle, sharedMemory } from "./support.js"

const now = Clock.currentTimeMillis

/** A poll of 100 ms makes reservations of 400 ms (four polls), which keep others out a turn of 100 ms after made. */
const options = { lease: "10 seconds", pollInterval: "100 millis", wait: "20 seconds" } as const
const pollMs = 100
const reservationMs = 400
const turnMs = 100

/** Moves the clock in small steps, so every sleeping fiber wakes on time. */
const advance = (ms: number) => Effect.andThen(TestClock.adjust("10 millis"), settle).pipe(repeatTimes(ms / 10 - 1))

const recordOf = (store: LockStore.LockStore, name: string) =>
  Effect.map(store.inspect(name), (record) => Option.getOrThrow(record))

/** Holds `name` in `store`'s process until `gate` opens. */
const holdUntil = (store: LockStore.LockStore, name: string, gate: Deferred.Deferred<void>, order: Array<string>) =>
  Lock.withLock(name, Effect.andThen(Effect.sync(() => order.push("held")), Deferred.await(gate)), options).pipe(
    Effect.provideService(LockStore.LockStore, store)
  )

describe("reservations across processes", () => {
  it.effect("a waiter that reserved gets the lock before the releaser, which asks again at once", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const [a, b] = [LockStore.processView(shared), LockStore.processView(shared)]
      const order: Array<string> = []
      const gate = yield* Deferred.make<void>()
      const first = yield* forkChild(holdUntil(a, "job", gate, order))
      yield* settle
      const waiter = yield* forkChild(
        Lock.withLock("job", Effect.sync(() => order.push("waiter")), options).pipe(
          Effect.provideService(LockStore.LockStore, b)
        )
      )
      yield* settle
      // One lost poll, then one reservation, refreshed only as it nears its end: far fewer writes than polls.
      yield* advance(1_000)
      expect((yield* recordOf(shared, "job")).reservedBy).toBeDefined()
      // The holder releases and its process asks again at once: it is refused, the reserved waiter gets in next.
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(first)
      const again = yield* forkChild(
        Lock.withLock("job", Effect.sync(() => order.push("releaser")), options).pipe(
          Effect.provideService(LockStore.LockStore, a)
        )
      )
      yield* settle
      yield* advance(1_000)
      yield* Fiber.join(waiter)
      yield* Fiber.join(again)
      expect(order).toEqual(["held", "waiter", "releaser"])
    }))

  it.effect("the holder's process keeps taking the lock for a turn after a waiter reserved; then the waiter is next", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const [a, b] = [LockStore.processView(shared), LockStore.processView(shared)]
      const holds: Array<{ readonly by: string; readonly at: number }> = []
      const section = (by: string) =>
        Effect.andThen(
          Effect.flatMap(now, (at) => Effect.sync(() => holds.push({ by, at }))),
          Effect.sleep("10 millis")
        )
      // The holder's process asks again as soon as it releases, as a hot loop does.
      const busy = yield* forkChild(
        Lock.withLock("job", section("a"), options).pipe(
          Effect.provideService(LockStore.LockStore, a),
          Effect.forever
        )
      )
      yield* settle
      const askedAt = yield* now
      const waiter = yield* forkChild(
        Lock.withLock("job", section("b"), options).pipe(Effect.provideService(LockStore.LockStore, b))
      )
      yield* advance(1_000)
      yield* Fiber.join(waiter)
      yield* Fiber.interrupt(busy)
      const waited = holds.find((hold) => hold.by === "b")!.at - askedAt
      const barged = holds.filter((hold) => hold.by === "a" && hold.at > askedAt).length
      // Cheap while the waiter is served in time: the holder's process kept the lock meanwhile, many times over.
      expect(barged).toBeGreaterThan(5)
      // Fair once it is not: a poll interval of waiting, a reservation at the next poll (jittered, at most a poll
      // interval), a turn, then the hold the reserver finds and an eighth of a poll interval for its next look.
      expect(waited).toBeGreaterThanOrEqual(pollMs + turnMs)
      expect(waited).toBeLessThanOrEqual(2 * pollMs + turnMs + 10 + pollMs / 8)
    }))

  it.effect("a process that releases a lock someone's reservation keeps it out of asks again without a refused write", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const releaser = yield* probe(shared)
      const order: Array<string> = []
      const gate = yield* Deferred.make<void>()
      const first = yield* forkChild(holdUntil(releaser.service, "job", gate, order))
      yield* settle
      const waiter = yield* forkChild(
        Lock.withLock("job", Effect.sync(() => order.push("waiter")), options).pipe(
          Effect.provideService(LockStore.LockStore, LockStore.processView(shared))
        )
      )
      // The waiter reserves, and its turn passes: its reservation keeps others out.
      yield* advance(2 * pollMs + turnMs)
      expect((yield* recordOf(shared, "job")).reservedBy).toBeDefined()
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(first)
      const writes = releaser.calls.tryAcquire
      const again = yield* forkChild(
        Lock.withLock("job", Effect.sync(() => order.push("releaser")), options).pipe(
          Effect.provide(releaser.layer)
        )
      )
      yield* settle
      // What its release left says the write would be refused: it waits, and looks before it writes.
      expect(releaser.calls.tryAcquire).toBe(writes)
      yield* advance(1_000)
      yield* Fiber.join(waiter)
      yield* Fiber.join(again)
      expect(order).toEqual(["held", "waiter", "releaser"])
    }))

  it.effect("a reservation that lands after the release still makes its waiter next once the turn is over", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const releaserView = LockStore.processView(shared)
      const reserveGate = yield* Deferred.make<void>()
      let reserving = false
      // The waiter's reserve is held until the lock is free, and its later attempts each take a round trip, so that
      // the releaser asks again before the waiter's acquire arrives.
      const waiterView = LockStore.intercept(shared, (operation, call) => {
        if (operation === "reserve") {
          reserving = true
          return Effect.andThen(Deferred.await(reserveGate), call)
        }
        return operation === "tryAcquire" && reserving ? Effect.andThen(Effect.sleep("5 millis"), call) : call
      })
      const order: Array<string> = []
      const gate = yield* Deferred.make<void>()
      const first = yield* forkChild(holdUntil(releaserView, "job", gate, order))
      yield* settle
      const waiter = yield* forkChild(
        Lock.withLock("job", Effect.sync(() => order.push("waiter")), options).pipe(
          Effect.provideService(LockStore.LockStore, waiterView)
        )
      )
      yield* settle
      yield* advance(200)
      expect(reserving).toBe(true)
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(first)
      yield* Deferred.succeed(reserveGate, undefined)
      yield* settle
      expect((yield* recordOf(shared, "job")).reservedBy).toBeDefined()
      yield* advance(turnMs)
      const again = yield* forkChild(
        Lock.withLock("job", Effect.sync(() => order.push("releaser")), options).pipe(
          Effect.provideService(LockStore.LockStore, releaserView)
        )
      )
      yield* settle
      yield* advance(1_000)
      yield* Fiber.join(waiter)
      yield* Fiber.join(again)
      expect(order).toEqual(["held", "waiter", "releaser"])
    }))

  it.effect("reserves once per wait, not once per poll", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const waiting = yield* probe(shared)
      const gate = yield* Deferred.make<void>()
      const holder = yield* forkChild(holdUntil(LockStore.processView(shared), "job", gate, []))
      yield* settle
      const waiter = yield* forkChild(Lock.withLock("job", Effect.void, options).pipe(Effect.provide(waiting.layer)))
      yield* settle
      yield* advance(2_000)
      // About 27 polls (jittered between 50 and 100 ms); a reservation of four polls is refreshed every three or so.
      // After the first write, each poll reads, and writes only when the write would take the lock.
      const polls = waiting.calls.tryAcquire + waiting.calls.inspect
      expect(waiting.calls.tryAcquire).toBe(1)
      expect(polls).toBeGreaterThan(20)
      expect(waiting.calls.reserve).toBeGreaterThanOrEqual(1)
      expect(waiting.calls.reserve).toBeLessThanOrEqual(polls / 3)
      yield* Deferred.succeed(gate, undefined)
      yield* advance(200)
      yield* Fiber.join(holder)
      yield* Fiber.join(waiter)
    }))

  it.effect("a crashed reserver delays a free lock by at most the reservation's length", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const [a, b, c] = [LockStore.processView(shared), LockStore.processView(shared), LockStore.processView(shared)]
      const gate = yield* Deferred.make<void>()
      const first = yield* forkChild(holdUntil(a, "job", gate, []))
      yield* settle
      const crashing = yield* forkChild(
        Lock.withLock("job", Effect.void, { ...options, wait: "forever" }).pipe(
          Effect.provideService(LockStore.LockStore, b)
        )
      )
      yield* settle
      yield* advance(500)
      // The reserver dies between polls: its reservation stays behind.
      yield* Fiber.interrupt(crashing)
      const reserved = yield* recordOf(shared, "job")
      expect(reserved.reservedBy).toBeDefined()
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(first)
      const releasedAt = yield* now
      let acquiredAt = 0
      const next = yield* forkChild(
        Lock.withLock("job", Effect.flatMap(now, (t) => Effect.sync(() => acquiredAt = t)), options).pipe(
          Effect.provideService(LockStore.LockStore, c)
        )
      )
      yield* settle
      yield* advance(1_000)
      yield* Fiber.join(next)
      // Kept out while the reservation was live, and let in right after it lapsed.
      expect(acquiredAt).toBeGreaterThan(releasedAt)
      expect(acquiredAt).toBeGreaterThan(reserved.reservedUntil)
      expect(acquiredAt - releasedAt).toBeLessThanOrEqual(reservationMs + 10)
    }))

  it.effect("an expired lease under someone else's live reservation is taken over once the reservation lapses", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      yield* deadHolder(shared, "job", 1_000)
      yield* TestClock.adjust("1 second")
      // A reserver that died too: its reservation outlives the dead holder's takeover time.
      yield* shared.reserve({
        name: "job",
        owner: "dead-waiter",
        reserveMs: 3_000,
        graceMs: 0,
        waitingSince: yield* now
      })
      const start = yield* now
      let acquiredAt = 0
      const waiter = yield* forkChild(
        Lock.withLock("job", Effect.flatMap(now, (t) => Effect.sync(() => acquiredAt = t)), {
          ...options,
          maxClockSkew: "0 millis"
        }).pipe(Effect.provideService(LockStore.LockStore, LockStore.processView(shared)))
      )
      yield* settle
      yield* advance(4_000)
      yield* Fiber.join(waiter)
      expect(acquiredAt).toBeGreaterThan(start + 3_000)
      expect(acquiredAt).toBeLessThanOrEqual(start + 3_000 + 10)
    }))

  it.effect("observed takeover makes no reservations", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const gate = yield* Deferred.make<void>()
      const holder = yield* forkChild(holdUntil(LockStore.processView(shared), "job", gate, []))
      yield* settle
      const waiter = yield* forkChild(
        Lock.withLock("job", Effect.void, { ...options, takeover: "observed" }).pipe(
          Effect.provideService(LockStore.LockStore, LockStore.processView(shared))
        )
      )
      yield* settle
      yield* advance(500)
      expect((yield* recordOf(shared, "job")).reservedBy).toBeUndefined()
      yield* Deferred.succeed(gate, undefined)
      yield* advance(200)
      yield* Fiber.join(holder)
      yield* Fiber.join(waiter)
    }))

  it.effect("a failing reserve never fails the acquire: the waiter keeps polling", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const waiting = yield* probe(shared)
      waiting.failing("reserve", true)
      const gate = yield* Deferred.make<void>()
      const holder = yield* forkChild(holdUntil(LockStore.processView(shared), "job", gate, []))
      yield* settle
      const waiter = yield* forkChild(
        Lock.withLock("job", Effect.succeed("in"), options).pipe(
          Effect.provide(waiting.layer)
        )
      )
      yield* settle
      yield* advance(500)
      expect(waiting.calls.reserve).toBeGreaterThanOrEqual(1)
      yield* Deferred.succeed(gate, undefined)
      yield* advance(200)
      yield* Fiber.join(holder)
      expect(yield* Fiber.join(waiter)).toBe("in")
    }))

  it.effect("the waiter that began to ask first goes next, though a later one reserved first", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const [a, b, c] = [LockStore.processView(shared), LockStore.processView(shared), LockStore.processView(shared)]
      const order: Array<string> = []
      const gate = yield* Deferred.make<void>()
      const first = yield* forkChild(holdUntil(a, "job", gate, order))
      yield* settle
      const waitFor = (store: LockStore.LockStore, label: string, pollInterval: DurationInput) =>
        forkChild(
          Lock.withLock("job", Effect.sync(() => order.push(label)), { ...options, pollInterval }).pipe(
            Effect.provideService(LockStore.LockStore, store)
          )
        )
      // The earlier waiter polls slowly, so the later one reserves first.
      const earlier = yield* waitFor(b, "earlier", "1 second")
      yield* advance(10)
      const later = yield* waitFor(c, "later", "100 millis")
      yield* advance(300)
      const owners = [(yield* recordOf(shared, "job")).reservedBy]
      yield* advance(1_700)
      owners.push((yield* recordOf(shared, "job")).reservedBy)
      expect(owners[0]).toBeDefined()
      expect(owners[1]).toBeDefined()
      expect(owners[1]).not.toBe(owners[0])
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(first)
      yield* advance(3_000)
      yield* Fiber.join(earlier)
      yield* Fiber.join(later)
      expect(order).toEqual(["held", "earlier", "later"])
    }))
})
