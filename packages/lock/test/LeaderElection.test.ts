import { describe, expect, it } from "@effect/vitest"
import * as LeaseSessionCore from "@leasehold/core/session/LeaseSession"
import { LeaderElection, LeaseSession, LockError, LockStore } from "@leasehold/lock"
import { Clock, Deferred, Effect, Exit, Fiber, Layer, Option, Stream } from "effect"
import {
  currentTimeMillisUnsafe,
  forkChild,
  forkDetach,
  makeClock,
  monotonicTimeNanosUnsafe,
  reasons,
  TestClock,
  warningLogger,
  withClock,
  withFixedRandom,
  yieldNow
} from "./effectLine.js"
import { currentClock, probe, recordingTracer, repeatTimes, sharedMemory } from "./support.js"

const now = Clock.currentTimeMillis

/** Lets forked fibers run up to their next suspension. */
const settle = yieldNow.pipe(repeatTimes(50))

/**
 * A process that can crash: from `crash()` on, none of its store calls reaches the store or comes back, so it neither
 * renews nor releases, as when its host dies.
 */
const crashable = (shared: LockStore.LockStore) => {
  let crashed = false
  const store = LockStore.intercept(shared, (_operation, call) => Effect.suspend(() => crashed ? Effect.never : call))
  return {
    store,
    layer: Layer.succeed(LockStore.LockStore, store),
    crash: () => {
      crashed = true
    }
  }
}

/**
 * A watcher's view of `shared` whose reads can go quiet: from `quiet()` on, every `inspect` waits without answering
 * (as a request to a stopped server does) until `answer()`, and then reads the store as it is by then.
 */
const quietReads = (shared: LockStore.LockStore) =>
  Effect.map(Deferred.make<void>(), (gate) => {
    let quiet = false
    let reads = 0
    const store = LockStore.intercept(shared, (operation, call) =>
      Effect.suspend(() => {
        if (operation !== "inspect") return call
        reads += 1
        return quiet ? Effect.andThen(Deferred.await(gate), call) : call
      }))
    return {
      layer: Layer.succeed(LockStore.LockStore, store),
      reads: () => reads,
      quiet: () => {
        quiet = true
      },
      answer: Effect.suspend(() => {
        quiet = false
        return Deferred.succeed(gate, undefined)
      })
    }
  })

/** A process whose next `failures` acquire attempts fail with a non-retryable error (a missing table, say). */
const failingAcquires = (shared: LockStore.LockStore, failures: number) => {
  const attempts: Array<number> = []
  let left = failures
  const store = LockStore.intercept(shared, (operation, call) =>
    Effect.gen(function*() {
      if (operation !== "tryAcquire") return yield* call
      attempts.push(yield* now)
      if (left <= 0) return yield* call
      left -= 1
      return yield* new LockError.LockStoreError({
        operation,
        retryable: false,
        message: "injected: the table does not exist"
      })
    }))
  return { attempts, layer: Layer.succeed(LockStore.LockStore, store) }
}

/** A logger layer that keeps every warning's message. */
const warningLog = () => {
  const warnings: Array<string> = []
  return { warnings, capture: warningLogger((message) => warnings.push(String(message))) }
}

/** A leader's effect that records each term it is given and when it was interrupted, and leads until stopped. */
const recordingLeader = () => {
  const terms: Array<LeaderElection.Term> = []
  const interruptedAt: Array<number> = []
  const leader = (term: LeaderElection.Term) =>
    Effect.andThen(
      Effect.sync(() => terms.push(term)),
      Effect.never.pipe(Effect.onInterrupt(() => Effect.map(now, (t) => interruptedAt.push(t))))
    )
  return { terms, interruptedAt, leader }
}

/** The TestClock, read `offsetMs` later on both the wall and the monotonic clock; sleeps as the TestClock does. */
const offsetClock = (offsetMs: number) =>
  Effect.map(currentClock, (base): Clock.Clock =>
    makeClock(
      () => currentTimeMillisUnsafe(base) + offsetMs,
      () => monotonicTimeNanosUnsafe(base) + BigInt(offsetMs) * 1_000_000n,
      (duration) => base.sleep(duration)
    ))

const recordOf = (store: LockStore.LockStore, name: string) => Effect.map(store.inspect(name), Option.getOrThrow)

/** The values a `leader` stream emits, with the TestClock time of each. */
const watch = (name: string, options: LeaderElection.WatchOptions, layer: Layer.Layer<LockStore.LockStore>) =>
  Effect.gen(function*() {
    const seen: Array<{ readonly at: number; readonly leader: Option.Option<LeaderElection.Leader> }> = []
    const fiber = yield* forkChild(
      LeaderElection.leader(name, options).pipe(
        Stream.runForEach((leader) => Effect.flatMap(now, (at) => Effect.sync(() => seen.push({ at, leader })))),
        Effect.provide(layer)
      )
    )
    yield* settle
    const holders = () =>
      seen.map(({ leader }) => Option.match(leader, { onNone: () => "none", onSome: (l) => l.holder }))
    return { seen, fiber, holders }
  })

describe("LeaderElection.run", () => {
  it.effect("a free election is won at once; the term carries the lock's name, owner, holder, fence and lease", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      yield* TestClock.setTime(5_000)
      const term = yield* LeaderElection.run("scheduler", (term) => Effect.succeed(term), { holder: "replica-1" }).pipe(
        Effect.provideService(LockStore.LockStore, LockStore.processView(shared))
      )
      expect(term).toMatchObject({ name: "scheduler", holder: "replica-1", since: 5_000 })
      expect(term.owner).toBe(term.lease.owner)
      expect(term.fence).toBe(term.lease.fence)
      expect(term.fence).toBe((yield* recordOf(shared, "scheduler")).fence)
      // The leader's effect completed: the process resigned.
      expect(yield* term.lease.status).toEqual({ _tag: "Released" })
      expect((yield* recordOf(shared, "scheduler")).owner).toBeUndefined()
    }))

  it.effect("a second candidate waits, and leads once the first resigns; each run returns its leader's result", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const elected: Array<{ readonly who: string; readonly at: number; readonly fence: number }> = []
      const candidate = (who: string, leadsFor: number) =>
        LeaderElection.run(
          "scheduler",
          (term) =>
            Effect.gen(function*() {
              elected.push({ who, at: yield* now, fence: term.fence })
              yield* Effect.sleep(leadsFor)
              return `${who} done`
            }),
          { holder: who, pollInterval: "200 millis" }
        ).pipe(Effect.provideService(LockStore.LockStore, LockStore.processView(shared)))
      const a = yield* forkChild(candidate("a", 10_000))
      yield* settle
      const b = yield* forkChild(candidate("b", 1_000))
      yield* TestClock.adjust("9 seconds")
      expect(elected.map(({ who }) => who)).toEqual(["a"])
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(a)).toBe("a done")
      yield* TestClock.adjust("200 millis")
      expect(elected).toHaveLength(2)
      expect(elected[1]!.who).toBe("b")
      expect(elected[1]!.at).toBeGreaterThanOrEqual(10_000)
      expect(elected[1]!.at).toBeLessThanOrEqual(10_200)
      expect(elected[1]!.fence).toBeGreaterThan(elected[0]!.fence)
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(b)).toBe("b done")
    }))

  it.effect("a leader whose renews fail is interrupted at its local deadline and campaigns again", () =>
    Effect.gen(function*() {
      const a = yield* probe(sharedMemory())
      const { interruptedAt, leader, terms } = recordingLeader()
      // Lease 3 s: renew every second; the local deadline is 300 ms before the lease ends.
      const fiber = yield* forkChild(
        LeaderElection.run("scheduler", leader, { lease: "3 seconds", pollInterval: "100 millis" }).pipe(
          Effect.provide(a.layer)
        )
      )
      yield* settle
      expect(terms.map((term) => term.fence)).toEqual([1])
      a.failing("renew", true)
      yield* TestClock.adjust("2700 millis")
      expect(interruptedAt).toEqual([2_700])
      expect((yield* terms[0]!.lease.status)._tag).toBe("Lost")
      a.failing("renew", false)
      // The lost lease is given back while the store's lease lasts, so the new campaign wins before it would end.
      yield* TestClock.adjust("300 millis")
      expect(terms.map((term) => term.fence)).toEqual([1, 2])
      expect(terms[1]!.since).toBeLessThan(3_000)
      expect(terms[1]!.owner).not.toBe(terms[0]!.owner)
      // The new term is kept alive by its heartbeat.
      yield* TestClock.adjust("1 minute")
      expect(terms).toHaveLength(2)
      expect(yield* terms[1]!.lease.isHeld).toBe(true)
      yield* Fiber.interrupt(fiber)
    }).pipe(withFixedRandom([0])))

  it.effect("a leader whose lock is taken by force is interrupted at its next renew, and leads again after", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const [a, operator] = yield* Effect.all([probe(shared), probe(shared)])
      const { interruptedAt, leader, terms } = recordingLeader()
      const fiber = yield* forkChild(LeaderElection.run("scheduler", leader).pipe(Effect.provide(a.layer)))
      yield* settle
      // An operator force-releases, and another process is elected and leads for 15 s.
      yield* operator.service.forceRelease("scheduler")
      const thief = yield* forkChild(
        LeaderElection.run("scheduler", (term) => Effect.as(Effect.sleep("15 seconds"), term.fence)).pipe(
          Effect.provide(operator.layer)
        )
      )
      yield* settle
      // Lease 30 s: the first renew goes a heartbeat (10 s) in, with this draw, and finds the lock taken.
      yield* TestClock.adjust("10 seconds")
      expect(interruptedAt).toEqual([10_000])
      const lost = yield* terms[0]!.lease.status
      expect(lost._tag === "Lost" && lost.error.reason).toBe("stolen")
      // The thief resigns at 15 s; the first leader's campaign wins within its poll interval (1 s for a 30 s lease).
      yield* TestClock.adjust("5 seconds")
      const thiefFence = yield* Fiber.join(thief)
      yield* TestClock.adjust("1 second")
      expect(terms).toHaveLength(2)
      expect(thiefFence).toBeGreaterThan(terms[0]!.fence)
      expect(terms[1]!.fence).toBeGreaterThan(thiefFence)
      yield* Fiber.interrupt(fiber)
    }).pipe(withFixedRandom([0])))

  it.effect("a crashed leader is replaced by a follower after leaseUntil + maxClockSkew, within a poll of it", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const a = crashable(shared)
      const options = { lease: "3 seconds", maxClockSkew: "1 second", pollInterval: "200 millis" } as const
      const first = recordingLeader()
      const second = recordingLeader()
      const leaderA = yield* forkChild(
        LeaderElection.run("scheduler", first.leader, { ...options, holder: "a" }).pipe(Effect.provide(a.layer))
      )
      yield* settle
      yield* forkChild(
        LeaderElection.run("scheduler", second.leader, { ...options, holder: "b" }).pipe(
          Effect.provideService(LockStore.LockStore, LockStore.processView(shared))
        )
      )
      // A leads for a while, renewing; B campaigns.
      yield* TestClock.adjust("5 seconds")
      expect(first.terms).toHaveLength(1)
      expect(second.terms).toHaveLength(0)
      // A's host dies: no renew, no release.
      const last = yield* recordOf(shared, "scheduler")
      expect(last.owner).toBe(first.terms[0]!.owner)
      a.crash()
      yield* forkDetach(Fiber.interrupt(leaderA))
      const takeoverAt = last.leaseUntil + 1_000
      for (let t = yield* now; t < takeoverAt + 1_000 && second.terms.length === 0; t += 50) {
        yield* TestClock.adjust("50 millis")
      }
      expect(second.terms).toHaveLength(1)
      const since = second.terms[0]!.since
      expect(since).toBeGreaterThan(takeoverAt)
      // The bound: lease + maxClockSkew after the last renew, plus at most one poll of the follower.
      expect(since - (last.leaseUntil - 3_000)).toBeLessThanOrEqual(3_000 + 1_000 + 200)
      expect(second.terms[0]!.fence).toBe(last.fence + 1)
    }))

  it.effect("in observed mode, a crashed leader is replaced a full unchanged lease after its last renew", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const a = crashable(shared)
      const options = { lease: "3 seconds", pollInterval: "200 millis", takeover: "observed" } as const
      const second = recordingLeader()
      const leaderA = yield* forkChild(
        LeaderElection.run("scheduler", () => Effect.never, { ...options, holder: "a" }).pipe(Effect.provide(a.layer))
      )
      yield* settle
      yield* forkChild(
        LeaderElection.run("scheduler", second.leader, { ...options, holder: "b" }).pipe(
          Effect.provideService(LockStore.LockStore, LockStore.processView(shared))
        )
      )
      yield* TestClock.adjust("5 seconds")
      const last = yield* recordOf(shared, "scheduler")
      a.crash()
      yield* forkDetach(Fiber.interrupt(leaderA))
      const renewedAt = last.leaseUntil - 3_000
      for (let t = yield* now; t < renewedAt + 10_000 && second.terms.length === 0; t += 50) {
        yield* TestClock.adjust("50 millis")
      }
      expect(second.terms).toHaveLength(1)
      const since = second.terms[0]!.since
      expect(since).toBeGreaterThanOrEqual(renewedAt + 3_000)
      expect(since - renewedAt).toBeLessThanOrEqual(3_000 + 2 * 200)
    }))

  it.effect("fences strictly increase across terms, and terms never overlap", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      let leading = 0
      let overlap = false
      const fences: Array<number> = []
      const candidate = (who: string) =>
        LeaderElection.run(
          "scheduler",
          (term) =>
            Effect.gen(function*() {
              leading += 1
              overlap ||= leading > 1
              fences.push(term.fence)
              yield* Effect.sleep("1 second")
              leading -= 1
            }),
          { holder: who, pollInterval: "100 millis" }
        ).pipe(repeatTimes(2), Effect.provideService(LockStore.LockStore, LockStore.processView(shared)))
      const fibers = yield* Effect.forEach(["a", "b", "c"], (who) => forkChild(candidate(who)))
      yield* TestClock.adjust("30 seconds")
      yield* Fiber.joinAll(fibers)
      expect(fences).toHaveLength(9)
      expect(fences.every((fence, i) => i === 0 || fence > fences[i - 1]!)).toBe(true)
      expect(overlap).toBe(false)
    }))

  it.effect("a leader's own failure resigns and fails the run; so does an interruption of the run", () =>
    Effect.gen(function*() {
      const store = LockStore.makeMemory()
      const provide = Effect.provideService(LockStore.LockStore, store)
      const error = yield* Effect.flip(
        LeaderElection.run("scheduler", () => Effect.fail("boom" as const)).pipe(provide)
      )
      expect(error).toBe("boom")
      expect((yield* recordOf(store, "scheduler")).owner).toBeUndefined()

      const { leader, terms } = recordingLeader()
      const fiber = yield* forkChild(LeaderElection.run("scheduler", leader).pipe(provide))
      yield* settle
      expect((yield* recordOf(store, "scheduler")).owner).toBe(terms[0]!.owner)
      yield* Fiber.interrupt(fiber)
      expect((yield* recordOf(store, "scheduler")).owner).toBeUndefined()
      expect(yield* terms[0]!.lease.status).toEqual({ _tag: "Released" })

      const died = yield* LeaderElection.run("scheduler", () => Effect.die("bug")).pipe(provide, Effect.exit)
      expect(Exit.isFailure(died) && reasons(died.cause).some((reason) => reason._tag === "Die")).toBe(true)
      expect((yield* recordOf(store, "scheduler")).owner).toBeUndefined()
    }))

  it.effect("a campaign ended by a store error is logged and tried again with a bounded backoff", () =>
    Effect.gen(function*() {
      const { attempts, layer } = failingAcquires(sharedMemory(), 4)
      const { capture, warnings } = warningLog()
      const fiber = yield* forkChild(
        LeaderElection.run("scheduler", (term) => Effect.succeed(term.fence), {
          pollInterval: "100 millis",
          maxBackoff: "300 millis"
        }).pipe(Effect.provide(layer), Effect.provide(capture))
      )
      yield* TestClock.adjust("2 seconds")
      expect(yield* Fiber.join(fiber)).toBeGreaterThan(0)
      // 100, 200, then 300 ms twice: doubling from the poll interval up to maxBackoff (this draw takes all of it).
      expect(attempts).toEqual([0, 100, 300, 600, 900])
      expect(warnings).toHaveLength(4)
      expect(warnings[0]).toContain("injected: the table does not exist")
      expect(warnings[0]).toContain("campaigning again in 100 ms (failure 1 in a row)")
      expect(warnings[3]).toContain("campaigning again in 300 ms (failure 4 in a row)")
    }).pipe(withFixedRandom([1])))

  it.effect("after maxCampaignFailures failed campaigns in a row, run fails with the store's error", () =>
    Effect.gen(function*() {
      const { attempts, layer } = failingAcquires(sharedMemory(), 10)
      const { capture, warnings } = warningLog()
      const fiber = yield* forkChild(
        LeaderElection.run("scheduler", () => Effect.void, { pollInterval: "100 millis", maxCampaignFailures: 3 }).pipe(
          Effect.provide(layer),
          Effect.provide(capture),
          Effect.flip
        )
      )
      yield* TestClock.adjust("2 seconds")
      const error = yield* Fiber.join(fiber)
      expect(error._tag).toBe("LockStoreError")
      expect(attempts).toHaveLength(3)
      expect(warnings.at(-1)).toContain("giving up after 3 failed campaigns in a row")
    }).pipe(withFixedRandom([1])))

  it.effect("retryable store errors in the middle of a campaign are retried by the waiting acquire", () =>
    Effect.gen(function*() {
      const a = yield* probe(sharedMemory())
      a.failing("tryAcquire", true)
      const fiber = yield* forkChild(
        LeaderElection.run("scheduler", (term) => Effect.succeed(term.fence), { pollInterval: "100 millis" }).pipe(
          Effect.provide(a.layer)
        )
      )
      yield* TestClock.adjust("1 second")
      expect(a.calls.tryAcquire).toBeGreaterThan(5)
      a.failing("tryAcquire", false)
      yield* TestClock.adjust("100 millis")
      expect(yield* Fiber.join(fiber)).toBeGreaterThan(0)
    }))

  it.effect("campaigns, terms and the run are spans, with the lock's name, owner and fence", () =>
    Effect.gen(function*() {
      const { spans, tracer } = recordingTracer()
      yield* LeaderElection.run("traced", () => Effect.void, { holder: "tracer" }).pipe(
        Effect.provide(LockStore.layerMemory),
        Effect.withTracer(tracer)
      )
      const byName = (name: string) => spans.filter((span) => span.name === name)
      const [run] = byName("LeaderElection.run")
      const [campaign] = byName("LeaderElection.campaign")
      const [term] = byName("LeaderElection.term")
      const [acquire] = byName("Lock.acquire")
      expect(run!.attributes.get("lock.name")).toBe("traced")
      expect(Object.fromEntries(campaign!.attributes)).toMatchObject({
        "lock.name": "traced",
        "lock.holder": "tracer",
        "lock.fence": 1,
        "lock.owner": acquire!.attributes.get("lock.owner")
      })
      expect(campaign!.parent).toMatchObject(Option.some({ spanId: run!.spanId }))
      expect(acquire!.parent).toMatchObject(Option.some({ spanId: campaign!.spanId }))
      expect(term!.parent).toMatchObject(Option.some({ spanId: run!.spanId }))
      expect(term!.attributes.get("lock.fence")).toBe(1)

      yield* LeaderElection.leader("traced").pipe(
        Stream.take(1),
        Stream.runDrain,
        Effect.provide(LockStore.layerMemory),
        Effect.withTracer(tracer)
      )
      expect(byName("LeaderElection.leader")[0]!.attributes.get("lock.name")).toBe("traced")
    }))
})

describe("LeaderElection.leader", () => {
  it.effect("emits none, then A, then B on a handover, each once, and only reads", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const watcher = yield* probe(shared)
      const { holders, seen } = yield* watch("scheduler", { pollInterval: "1 second" }, watcher.layer)
      const candidate = (who: string, leadsFor: number) =>
        forkChild(
          LeaderElection.run("scheduler", () => Effect.sleep(leadsFor), { holder: who, pollInterval: "200 millis" })
            .pipe(Effect.provideService(LockStore.LockStore, LockStore.processView(shared)))
        )
      yield* candidate("a", 5_200)
      yield* settle
      yield* candidate("b", 60_000)
      yield* TestClock.adjust("20 seconds")
      expect(holders()).toEqual(["none", "a", "b"])
      expect(seen.map(({ at }) => at)).toEqual([0, 1_000, 6_000])
      const [a, b] = [Option.getOrThrow(seen[1]!.leader), Option.getOrThrow(seen[2]!.leader)]
      expect(a).toMatchObject({ holder: "a", fence: 1, since: 0, data: undefined })
      expect(b.fence).toBe(2)
      expect(b.since).toBeGreaterThan(5_200)
      expect(b.owner).toBe((yield* recordOf(shared, "scheduler")).owner)
      // One read per poll, nothing else.
      expect(watcher.calls.inspect).toBe(21)
      const { inspect: _inspect, ...others } = watcher.calls
      expect(Object.values(others).every((n) => n === 0)).toBe(true)
    }))

  it.effect("a crashed leader counts as none from its leaseUntil on, until a follower takes over", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const a = crashable(shared)
      const options = { lease: "3 seconds", maxClockSkew: "1 second", pollInterval: "200 millis" } as const
      const leaderA = yield* forkChild(
        LeaderElection.run("scheduler", () => Effect.never, { ...options, holder: "a" }).pipe(
          Effect.provide(a.layer)
        )
      )
      yield* settle
      const { holders, seen } = yield* watch(
        "scheduler",
        { pollInterval: "100 millis" },
        Layer.succeed(LockStore.LockStore, LockStore.processView(shared))
      )
      yield* forkChild(
        LeaderElection.run("scheduler", () => Effect.never, { ...options, holder: "b" }).pipe(
          Effect.provideService(LockStore.LockStore, LockStore.processView(shared))
        )
      )
      yield* TestClock.adjust("2 seconds")
      const last = yield* recordOf(shared, "scheduler")
      a.crash()
      yield* forkDetach(Fiber.interrupt(leaderA))
      yield* TestClock.adjust("10 seconds")
      expect(holders()).toEqual(["a", "none", "b"])
      const noneAt = seen[1]!.at
      expect(noneAt).toBeGreaterThanOrEqual(last.leaseUntil)
      expect(noneAt).toBeLessThan(last.leaseUntil + 100)
      expect(seen[2]!.at).toBeGreaterThan(last.leaseUntil + 1_000)
    }).pipe(withFixedRandom([0])))

  it.effect("observed mode trusts no wall clock: a leader is gone once unchanged for a full lease", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const a = crashable(shared)
      // The leader's wall clock is an hour ahead, so its leaseUntil is too.
      const ahead = yield* offsetClock(3_600_000)
      yield* forkChild(
        LeaderElection.run("scheduler", () => Effect.never, { lease: "3 seconds", holder: "a" }).pipe(
          Effect.provide(a.layer),
          withClock(ahead)
        )
      )
      yield* settle
      const view = Layer.succeed(LockStore.LockStore, LockStore.processView(shared))
      const absolute = yield* watch("scheduler", { pollInterval: "100 millis" }, view)
      const observed = yield* watch("scheduler", { pollInterval: "100 millis", takeover: "observed" }, view)
      // Renewed at 1 s and 2 s, then the leader's host dies.
      yield* TestClock.adjust("2 seconds")
      a.crash()
      yield* TestClock.adjust("10 seconds")
      expect(absolute.holders()).toEqual(["a"])
      expect(observed.holders()).toEqual(["a", "none"])
      // Unchanged since the first poll that saw the last renew (at 2 s, or one poll later), for a full lease.
      expect(observed.seen[1]!.at).toBeGreaterThanOrEqual(5_000)
      expect(observed.seen[1]!.at).toBeLessThanOrEqual(5_100)
    }).pipe(withFixedRandom([0])))

  it.effect("a crashed leader turns into none at its leaseUntil while the watcher's read hangs; polls go on", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const a = crashable(shared)
      const reads = yield* quietReads(shared)
      const options = { lease: "3 seconds", maxClockSkew: "1 second", pollInterval: "200 millis" } as const
      yield* forkChild(
        LeaderElection.run("scheduler", () => Effect.never, { ...options, holder: "a" }).pipe(Effect.provide(a.layer))
      )
      yield* settle
      const { holders, seen } = yield* watch("scheduler", { pollInterval: "100 millis" }, reads.layer)
      yield* forkChild(
        LeaderElection.run("scheduler", () => Effect.never, { ...options, holder: "b" }).pipe(
          Effect.provideService(LockStore.LockStore, LockStore.processView(shared))
        )
      )
      yield* TestClock.adjust("2 seconds")
      a.crash()
      const last = yield* recordOf(shared, "scheduler")
      // The watcher has read the last record; from now on its reads hang, one of them always in flight.
      yield* TestClock.adjust("300 millis")
      reads.quiet()
      yield* TestClock.adjust("10 seconds")
      expect(holders()).toEqual(["a", "none"])
      // At the lease's end, before the takeover time (leaseUntil + maxClockSkew) and whatever the read in flight does.
      expect(seen[1]!.at).toBe(last.leaseUntil)
      expect(seen[1]!.at).toBeLessThanOrEqual(last.leaseUntil + 1_000)
      expect((yield* recordOf(shared, "scheduler")).holder).toBe("b")
      // The store answers again: the read in flight brings news of b, and the watcher polls on.
      const readsBefore = reads.reads()
      yield* reads.answer
      yield* TestClock.adjust("1 second")
      expect(holders()).toEqual(["a", "none", "b"])
      expect(reads.reads() - readsBefore).toBeGreaterThanOrEqual(9)
    }).pipe(withFixedRandom([0])))

  it.effect("in observed mode, a leader turns into none a lease after its last change while the read hangs", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const a = crashable(shared)
      const reads = yield* quietReads(shared)
      // The leader's wall clock is an hour behind: only the watcher's monotonic clock counts.
      const behind = yield* offsetClock(-3_600_000)
      yield* forkChild(
        LeaderElection.run("scheduler", () => Effect.never, { lease: "3 seconds", holder: "a" }).pipe(
          Effect.provide(a.layer),
          withClock(behind)
        )
      )
      yield* settle
      const { holders, seen } = yield* watch(
        "scheduler",
        { pollInterval: "100 millis", takeover: "observed" },
        reads.layer
      )
      yield* TestClock.adjust("2 seconds")
      a.crash()
      // The last renew, on the TestClock (the leader's clock plus the hour).
      const lastRenewAt = (yield* recordOf(shared, "scheduler")).leaseUntil - 3_000 + 3_600_000
      yield* TestClock.adjust("300 millis")
      reads.quiet()
      yield* TestClock.adjust("10 seconds")
      expect(holders()).toEqual(["a", "none"])
      // A full lease after the first poll that saw the last renew (at most a poll after it).
      expect(seen[1]!.at).toBeGreaterThanOrEqual(lastRenewAt + 3_000)
      expect(seen[1]!.at).toBeLessThanOrEqual(lastRenewAt + 3_000 + 100)
    }).pipe(withFixedRandom([0])))

  it.effect("failed reads keep the last record, judged by the clock; a non-retryable one fails the stream", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const a = crashable(shared)
      const watcher = yield* probe(shared)
      const { capture, warnings } = warningLog()
      yield* forkChild(
        LeaderElection.run("scheduler", () => Effect.never, { lease: "3 seconds", holder: "a" }).pipe(
          Effect.provide(a.layer)
        )
      )
      yield* settle
      const { holders, seen } = yield* watch(
        "scheduler",
        { pollInterval: "100 millis" },
        Layer.merge(watcher.layer, capture)
      )
      yield* TestClock.adjust("1 second")
      const last = yield* recordOf(shared, "scheduler")
      watcher.failing("inspect", true)
      a.crash()
      yield* TestClock.adjust("5 seconds")
      expect(holders()).toEqual(["a", "none"])
      expect(seen[1]!.at).toBeGreaterThanOrEqual(last.leaseUntil)
      expect(seen[1]!.at).toBeLessThan(last.leaseUntil + 100)
      expect(warnings.filter((w) => w.includes("reading the store failed"))).toHaveLength(1)

      const fatal = LockStore.intercept(shared, (operation, call) =>
        operation === "inspect"
          ? Effect.fail(new LockError.LockStoreError({ operation, retryable: false, message: "access denied" }))
          : call)
      const error = yield* LeaderElection.leader("scheduler").pipe(
        Stream.runDrain,
        Effect.provideService(LockStore.LockStore, fatal),
        Effect.flip
      )
      expect(error).toMatchObject({ _tag: "LockStoreError", message: "access denied" })
    }))
})

describe("LeaderElection under a lease session", () => {
  const sessionOptions = { lease: "3 seconds", heartbeat: "1 second", safetyMargin: "300 millis" } as const
  const options = { maxClockSkew: "1 second", pollInterval: "200 millis" } as const

  it.effect("a crashed leader under a session is none from the session's leaseUntil on, and replaced after its skew", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const a = crashable(shared)
      const leaderA = yield* forkChild(
        LeaderElection.run("scheduler", () => Effect.never, { ...options, holder: "a" }).pipe(
          Effect.provide(LeaseSession.layer(sessionOptions)),
          Effect.provide(a.layer)
        )
      )
      yield* settle
      const held = yield* recordOf(shared, "scheduler")
      const session = LeaseSessionCore.sessionOf(held)
      expect(session).toBeDefined()
      const { holders, seen } = yield* watch(
        "scheduler",
        { pollInterval: "100 millis" },
        Layer.succeed(LockStore.LockStore, LockStore.processView(shared))
      )
      yield* forkChild(
        LeaderElection.run("scheduler", () => Effect.never, { ...options, holder: "b" }).pipe(
          Effect.provideService(LockStore.LockStore, LockStore.processView(shared))
        )
      )
      yield* TestClock.adjust("2 seconds")
      const last = yield* recordOf(shared, LeaseSessionCore.recordName(session!))
      a.crash()
      yield* forkDetach(Fiber.interrupt(leaderA))
      yield* TestClock.adjust("10 seconds")
      expect(holders()).toEqual(["a", "none", "b"])
      // The leader's own record says it holds until the year 9999: its session's lease is what ran out.
      const noneAt = seen[1]!.at
      expect(noneAt).toBeGreaterThanOrEqual(last.leaseUntil)
      expect(noneAt).toBeLessThan(last.leaseUntil + 200)
      expect(seen[2]!.at).toBeGreaterThan(last.leaseUntil + 1_000)
    }).pipe(withFixedRandom([0])))

  it.effect("the session's loss ends the term, and the run fails with the LockNotAcquired naming the session", () =>
    Effect.gen(function*() {
      const shared = sharedMemory()
      const process = yield* probe(shared)
      process.failing("renew", true)
      const { interruptedAt, leader, terms } = recordingLeader()
      const run = yield* forkChild(
        Effect.flip(LeaderElection.run("scheduler", leader, options)).pipe(
          Effect.provide(LeaseSession.layer(sessionOptions)),
          Effect.provide(process.layer)
        )
      )
      yield* TestClock.adjust("10 seconds")
      const error = yield* Fiber.join(run)
      expect([terms.length, interruptedAt.length]).toEqual([1, 1])
      // Interrupted at the session's deadline: its lease less the safety margin.
      expect(interruptedAt[0]).toBeLessThanOrEqual(2_700)
      expect(error._tag).toBe("LockNotAcquired")
      if (error._tag === "LockNotAcquired") expect(error.session).toBeDefined()
    }))
})

describe("LeaderElection validation", () => {
  it.effect("a bad name or bad options fail with LockConfigError before any store call", () =>
    Effect.gen(function*() {
      const p = yield* probe(sharedMemory())
      const runWith = (name: string, options: LeaderElection.ElectionOptions) =>
        Effect.flip(LeaderElection.run(name, () => Effect.void, options).pipe(Effect.provide(p.layer)))
      const watchWith = (name: string, options: LeaderElection.WatchOptions) =>
        Effect.flip(LeaderElection.leader(name, options).pipe(Stream.runDrain, Effect.provide(p.layer)))
      const cases = [
        [yield* runWith("", {}), "name"],
        [yield* runWith("x".repeat(2_000), {}), "name"],
        [yield* runWith("job", { lease: -1 }), "lease"],
        [yield* runWith("job", { lease: "10 seconds", heartbeat: "20 seconds" }), "heartbeat"],
        [yield* runWith("job", { pollInterval: 0 }), "pollInterval"],
        [yield* runWith("job", { maxBackoff: "0 millis" }), "maxBackoff"],
        [yield* runWith("job", { maxBackoff: Number.NaN }), "maxBackoff"],
        [yield* runWith("job", { maxCampaignFailures: 0 }), "maxCampaignFailures"],
        [yield* runWith("job", { maxCampaignFailures: 2.5 }), "maxCampaignFailures"],
        [yield* runWith("job", { maxCampaignFailures: "never" as never }), "maxCampaignFailures"],
        [yield* runWith("job", { takeover: "sometimes" as never }), "takeover"],
        [yield* watchWith("", {}), "name"],
        [yield* watchWith("job", { pollInterval: 0 }), "pollInterval"],
        [yield* watchWith("job", { pollInterval: "-1 seconds" as never }), "pollInterval"],
        [yield* watchWith("job", { takeover: "sometimes" as never }), "takeover"]
      ] as const
      for (const [error, option] of cases) {
        expect(error._tag).toBe("LockConfigError")
        expect(error._tag === "LockConfigError" && error.option).toBe(option)
      }
      expect(Object.values(p.calls).every((n) => n === 0)).toBe(true)
    }))
})
