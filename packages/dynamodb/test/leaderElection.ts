/**
 * Leader election on a real DynamoDB server: candidates and a watcher in one process, each with a store (and so a
 * client) of its own, as separate processes would have. Real time throughout, with short leases and polls: each step
 * waits for what it needs to see, within a bound.
 */
import type { Vitest } from "@effect/vitest"
import { expect } from "@effect/vitest"
import { LeaderElection, LockStore } from "@leasehold/lock"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import { Clock, Deferred, Effect, Fiber, Option, Stream } from "effect"
import { forkChild, logLevels, withMinimumLogLevel } from "./effectLine.js"
import { makeStore, makeTable, timeoutOrElse, unique } from "./support.js"

/** Waits (real time) until `done` holds, checking every 10 ms; dies after `limit`. */
const eventually = (what: string, done: () => boolean, limit = "10 seconds" as const) =>
  Effect.gen(function*() {
    while (!done()) yield* Effect.sleep("10 millis")
  }).pipe(
    timeoutOrElse({ duration: limit, orElse: () => Effect.fail(new Error(`not seen within ${limit}: ${what}`)) }),
    Effect.orDie
  )

const holderOf = (leader: Option.Option<LeaderElection.Leader>) =>
  Option.match(leader, { onNone: () => "none", onSome: (l) => l.holder })

/** Takes the `it` of a layer without test services (real time throughout). */
export const electionBehaviour = (it: { readonly effect: Vitest.Tester<DynamoServer.DynamoServer> }) => {
  it.effect(
    "a second candidate takes over when the first resigns, and the leader stream sees both",
    () =>
      Effect.gen(function*() {
        const { tableName } = yield* makeTable()
        // Three processes: two candidates and a watcher, each with its own client.
        const [a, b, watcher] = yield* Effect.all([makeStore(tableName), makeStore(tableName), makeStore(tableName)])
        const name = unique("election")
        const options = { lease: "3 seconds", pollInterval: "50 millis" } as const

        const seen: Array<Option.Option<LeaderElection.Leader>> = []
        const holders = () => seen.map(holderOf)
        yield* Effect.forkScoped(
          LeaderElection.leader(name, { pollInterval: "20 millis" }).pipe(
            Stream.runForEach((leader) => Effect.sync(() => seen.push(leader))),
            Effect.provideService(LockStore.LockStore, watcher)
          )
        )
        yield* eventually("the watcher's first read", () => seen.length > 0)
        expect(holders()).toEqual(["none"])

        const resign = yield* Deferred.make<void>()
        const first = yield* forkChild(
          LeaderElection.run(name, (term) => Effect.as(Deferred.await(resign), term), { ...options, holder: "a" }).pipe(
            Effect.provideService(LockStore.LockStore, a)
          )
        )
        yield* eventually("a leads", () => holders().includes("a"))

        // The second candidate leads until the watcher has seen it.
        const second = yield* forkChild(
          LeaderElection.run(
            name,
            (term) => Effect.as(eventually("b leads", () => holders().includes("b")), term),
            { ...options, holder: "b" }
          ).pipe(Effect.provideService(LockStore.LockStore, b))
        )
        // It campaigns while a leads.
        yield* Effect.sleep("300 millis")
        expect(holders().includes("b")).toBe(false)
        const resignedAt = yield* Clock.currentTimeMillis
        yield* Deferred.succeed(resign, undefined)
        const termA = yield* Fiber.join(first)
        const termB = yield* Fiber.join(second)

        expect(termA.holder).toBe("a")
        expect(termB.holder).toBe("b")
        expect(termB.fence).toBeGreaterThan(termA.fence)
        // The term begins with the acquiring write as it was built: one sent just before a resigned may land just after.
        expect(termB.since).toBeGreaterThan(termA.since)
        expect(termB.since).toBeGreaterThan(resignedAt - 1_000)
        // none, a, then b (with none between them if a poll fell into the handover), each once.
        expect(holders()[0]).toBe("none")
        expect(holders().filter((holder) => holder !== "none")).toEqual(["a", "b"])
        expect(holders().every((holder, i) => i === 0 || holder !== holders()[i - 1])).toBe(true)
        const [leaderA, leaderB] = seen.filter(Option.isSome).map((leader) => leader.value)
        expect(leaderA).toMatchObject({ owner: termA.owner, fence: termA.fence, since: termA.since })
        expect(leaderB).toMatchObject({ owner: termB.owner, fence: termB.fence, since: termB.since })
        // b resigned too: the lock is free, with b's fence kept.
        const record = Option.getOrThrow(yield* watcher.inspect(name))
        expect(record.owner).toBeUndefined()
        expect(record.fence).toBe(termB.fence)
      }).pipe(withMinimumLogLevel(logLevels.Warn), Effect.scoped),
    30_000
  )

  it.effect(
    "while the server holds every request, the watcher reports none once the leader's lease is over, not at a timeout",
    () =>
      Effect.gen(function*() {
        const server = yield* DynamoServer.DynamoServer
        const { tableName } = yield* makeTable()
        const [a, watcher] = yield* Effect.all([makeStore(tableName), makeStore(tableName)])
        // The server, past the proxy: what the last applied renew left, while the proxy holds everything else.
        const direct = yield* makeStore(tableName, {
          clientConfig: { ...server.clientConfig, endpoint: server.serverEndpoint }
        })
        const name = unique("election")
        const options = { lease: "2 seconds", maxClockSkew: "500 millis", holder: "a" } as const

        const seen: Array<{ readonly at: number; readonly holder: string }> = []
        yield* Effect.forkScoped(
          LeaderElection.leader(name, { pollInterval: "50 millis" }).pipe(
            Stream.runForEach((leader) =>
              Effect.flatMap(Clock.currentTimeMillis, (at) =>
                Effect.sync(() => seen.push({ at, holder: holderOf(leader) })))
            ),
            Effect.provideService(LockStore.LockStore, watcher)
          )
        )
        yield* Effect.forkScoped(
          LeaderElection.run(name, () =>
            Effect.never, options).pipe(Effect.provideService(LockStore.LockStore, a))
        )
        yield* eventually("a leads", () => seen.some(({ holder }) => holder === "a"))
        // Let a renew once, then the server goes silent: every request, reads included, is held.
        yield* Effect.sleep("1 second")
        yield* server.pause
        yield* Effect.addFinalizer(() => server.resume)
        const pausedAt = yield* Clock.currentTimeMillis
        // Give a request that was already on its way time to land before reading what the server keeps.
        yield* Effect.sleep("100 millis")
        const last = Option.getOrThrow(yield* direct.inspect(name))
        expect(last.holder).toBe("a")
        const takeoverAt = last.leaseUntil + 500
        yield* eventually("the watcher reports none", () => seen.at(-1)?.holder === "none")
        const noneAt = seen.at(-1)!.at
        expect(seen.map(({ holder }) => holder)).toEqual(["none", "a", "none"].slice(seen[0]!.holder === "a" ? 1 : 0))
        expect(noneAt).toBeGreaterThan(pausedAt)
        // By the takeover time at the latest (the watcher judges the leaseUntil it last read, at most the server's),
        // with room for a busy machine's timers; the store's own request timeout and retries play no part.
        expect(noneAt).toBeLessThanOrEqual(takeoverAt + 300)
        expect(yield* server.pending).toBeGreaterThan(0)
      }).pipe(withMinimumLogLevel(logLevels.Error), Effect.scoped),
    30_000
  )
}
