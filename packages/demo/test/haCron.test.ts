// examples/haCron.ts on the memory store and the TestClock: two replicas, the leader crashes, the follower fires.
import { describe, expect, it } from "@effect/vitest"
import { LeaderElection, LockStore } from "@leasehold/lock"
import { Cron, Effect, Either, Fiber, Layer, Logger, LogLevel, Option, Stream, TestClock } from "effect"
import { type Firing, replica } from "../../../examples/haCron.js"

/** Lets forked fibers run up to their next suspension. */
const settle = Effect.repeatN(Effect.yieldNow(), 50)

/** A process that can crash: from `crash()` on, none of its store calls reaches the store or comes back. */
const crashable = (shared: LockStore.LockStore) => {
  let crashed = false
  const store = LockStore.intercept(shared, (_operation, call) => Effect.suspend(() => crashed ? Effect.never : call))
  return {
    layer: Layer.succeed(LockStore.LockStore, store),
    crash: () => {
      crashed = true
    }
  }
}

const everyTenSeconds = Either.getOrThrow(Cron.parse("0,10,20,30,40,50 * * * * *", "UTC"))
/** A dead leader is replaced within lease + maxClockSkew + pollInterval of its last renew: 4.2 s here. */
const electionOptions = { lease: "3 seconds", maxClockSkew: "1 second", pollInterval: "200 millis" } as const

describe("examples/haCron.ts", () => {
  it.effect("only the leader fires, with its fence; when it crashes, a follower takes over and fires", () =>
    Effect.gen(function*() {
      const shared = LockStore.makeMemory()
      const firings: Array<Firing> = []
      const job = (firing: Firing) => Effect.sync(() => firings.push(firing))
      const start = (holder: string, layer: Layer.Layer<LockStore.LockStore>) =>
        Effect.fork(
          replica({ election: "ha-cron", holder, cron: everyTenSeconds, job, electionOptions }).pipe(
            Effect.provide(layer)
          )
        )
      const a = crashable(shared)
      const replicaA = yield* start("a", a.layer)
      yield* settle
      yield* start("b", Layer.succeed(LockStore.LockStore, LockStore.processView(shared)))

      // Ticks at 10 s and 20 s: both replicas run the schedule, the leader fires each tick once.
      yield* TestClock.adjust("25 seconds")
      expect(firings.map(({ at, holder }) => [at, holder])).toEqual([[10_000, "a"], [20_000, "a"]])
      const fenceA = firings[0]!.fence
      expect(firings[1]!.fence).toBe(fenceA)

      // The leader's host dies: it neither renews nor releases.
      const last = Option.getOrThrow(yield* shared.inspect("ha-cron"))
      a.crash()
      yield* Fiber.interruptFork(replicaA)

      yield* TestClock.adjust("20 seconds")
      // Elected within its bound of a's last renew, and never before a's lease could be taken over.
      const taken = Option.getOrThrow(yield* shared.inspect("ha-cron"))
      expect(taken.holder).toBe("b")
      expect(taken.acquiredAt).toBeGreaterThan(last.leaseUntil + 1_000)
      expect(taken.acquiredAt! - (last.leaseUntil - 3_000)).toBeLessThanOrEqual(3_000 + 1_000 + 200)
      // The follower fires the ticks from then on (30 s and 40 s), with its own, higher fence.
      expect(firings.map(({ at, holder }) => [at, holder])).toEqual([
        [10_000, "a"],
        [20_000, "a"],
        [30_000, "b"],
        [40_000, "b"]
      ])
      expect(firings[2]!.fence).toBe(taken.fence)
      expect(firings[2]!.fence).toBeGreaterThan(fenceA)

      // A watcher sees the same leader.
      const leader = yield* LeaderElection.leader("ha-cron").pipe(
        Stream.runHead,
        Effect.provideService(LockStore.LockStore, shared)
      )
      expect(Option.flatten(leader).pipe(Option.map((l) => l.holder))).toEqual(Option.some("b"))
    }).pipe(Logger.withMinimumLogLevel(LogLevel.Warning)))
})
