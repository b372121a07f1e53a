/**
 * `LeaderElection.leader`: who leads, as a watcher that only reads sees it. One `inspect` right away and then a poll
 * interval after each read ends. The last record read is judged by the clock whenever a read ends, and also at the
 * moment the leader it names runs out of lease, so a leader turns into none then even while a read is in flight, slow
 * or never answered. A leader under a lease session is judged by its session's lease, read with its record.
 *
 * @internal
 */
import * as LeaderWatch from "@leasehold/core/election/LeaderWatch"
import type { LockRecord } from "@leasehold/core/record/LockRecord"
import * as LeaseSession from "@leasehold/core/session/LeaseSession"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as LeaderElection from "../../LeaderElection.js"
import type { LockConfigError, LockStoreError } from "../../LockError.js"
import { LockStore } from "../../LockStore.js"
import * as EffectLine from "../effectLine.js"
import { LockDefaults } from "../options/defaults.js"
import * as Options from "../options/options.js"
import { type Outcome, outcome } from "../outcome.js"
import { monotonicMillis } from "../process/clock.js"
import * as ElectionOptions from "./leaderElectionOptions.js"

/** What one watcher has learned: the last record it read, and since when (its monotonic ms) it has been unchanged. */
interface Watched {
  record: LockRecord | undefined
  unchangedSince: number
  /** Failed reads in a row. */
  failures: number
}

/** The leader the last record names, as the stream's value (see `LeaderWatch.leaderOf`). */
const leaderOf = (
  record: LockRecord | undefined,
  takeover: "absolute" | "observed",
  unchangedSince: number,
  wallNow: number,
  now: number
): Option.Option<LeaderElection.Leader> =>
  Option.liftPredicate(LeaderWatch.leaderOf(record, takeover, unchangedSince, wallNow, now), Predicate.isNotUndefined)

/** Whether two values of the stream are the same: both none, or the same term. */
const sameLeader = (a: Option.Option<LeaderElection.Leader>, b: Option.Option<LeaderElection.Leader>): boolean =>
  LeaderWatch.sameLeader(Option.getOrUndefined(a), Option.getOrUndefined(b))

type Read = EffectLine.Fiber<Option.Option<LockRecord>, LockStoreError>

/**
 * One read of the leader's record; for a leader under a lease session, also of the session's record, whose lease is the
 * leader's (`LeaderWatch.underSession`).
 */
const readLeader = (
  store: LockStore,
  name: string
): Effect.Effect<Option.Option<LockRecord>, LockStoreError> =>
  Effect.flatMap(store.inspect(name), (read) => {
    const session = Option.isSome(read) ? LeaseSession.sessionOf(read.value) : undefined
    if (session === undefined) return Effect.succeed(read)
    return Effect.map(
      store.inspect(LeaseSession.recordName(session)),
      (record) => Option.map(read, (leader) => LeaderWatch.underSession(leader, Option.getOrUndefined(record), session))
    )
  })

/**
 * One watcher's loop, a step per value: each step waits for the next thing that can change the answer (the read in
 * flight ending, the leader's lease running out, the next read falling due) until the answer differs from the one it
 * last reported, and returns it.
 * Reads run in fibers of the stream's scope, one at a time, so that waiting for one never holds up the clock's
 * judgement, and an answer never overtakes a later one.
 */
const watcher = (
  store: LockStore,
  name: string,
  resolved: ElectionOptions.ResolvedWatch,
  scope: Scope.Scope,
  startedAt: number
) => {
  const watched: Watched = { record: undefined, unchangedSince: startedAt, failures: 0 }
  let inFlight: Read | undefined
  let nextReadAt = startedAt

  /** Takes in what a read answered; fails the stream on a non-retryable error. */
  const learn = (answer: Outcome<Option.Option<LockRecord>, LockStoreError>) =>
    Effect.gen(function*() {
      const now = yield* monotonicMillis
      nextReadAt = now + resolved.pollIntervalMs
      if (answer._tag === "Failure") {
        const error = answer.failure
        if (!error.retryable) return yield* Effect.fail(error)
        watched.failures += 1
        const log = watched.failures === 1 ? Effect.logWarning : Effect.logDebug
        return yield* log(
          `watching the leader of "${name}": reading the store failed (${error.message}); judging the last record ` +
            `read by the clock and trying again in ${resolved.pollIntervalMs} ms`
        ).pipe(Effect.annotateLogs({ lock: name, failures: watched.failures }))
      }
      if (watched.failures > 0) {
        yield* Effect.logInfo(`watching the leader of "${name}": the store answers again`).pipe(
          Effect.annotateLogs({ lock: name, failures: watched.failures })
        )
      }
      watched.failures = 0
      const record = Option.getOrUndefined(answer.success)
      watched.unchangedSince = LeaderWatch.unchangedSince(watched.record, record, watched.unchangedSince, now)
      watched.record = record
    })

  /** The answer last reported: `undefined` until the first, which comes once the first read has ended. */
  let reported: Option.Option<LeaderElection.Leader> | undefined
  let readEnded = false

  return Effect.gen(function*() {
    while (true) {
      // One reading of the clocks decides the step: the answer, the lease left and the time to the next read agree.
      const wallNow = yield* Clock.currentTimeMillis
      const now = yield* monotonicMillis
      const current = leaderOf(watched.record, resolved.takeover, watched.unchangedSince, wallNow, now)
      const next = LeaderWatch.step({
        changed: reported === undefined ? readEnded : !sameLeader(current, reported),
        leftMs: LeaderWatch.leaseLeft(watched.record, resolved.takeover, watched.unchangedSince, wallNow, now),
        readInFlight: inFlight !== undefined,
        untilReadMs: nextReadAt - now
      })
      switch (next._tag) {
        case "Report": {
          reported = current
          return current
        }
        case "Await": {
          const answer = outcome(Effect.flatten(Fiber.await(inFlight!)))
          // Giving up the wait leaves the read running: its answer is taken at a later step.
          const ended = next.boundMs === undefined
            ? Option.some(yield* answer)
            : yield* Effect.timeoutOption(answer, Duration.millis(next.boundMs))
          if (Option.isSome(ended)) {
            inFlight = undefined
            readEnded = true
            yield* learn(ended.value)
          }
          break
        }
        case "Read": {
          inFlight = yield* Effect.forkIn(readLeader(store, name), scope)
          break
        }
        case "Judge":
        case "Sleep": {
          yield* Effect.sleep(Duration.millis(next.sleepMs))
          break
        }
      }
    }
  })
}

/** @internal */
export const leader = (
  name: string,
  options?: LeaderElection.WatchOptions
): Stream.Stream<Option.Option<LeaderElection.Leader>, LockStoreError | LockConfigError, LockStore> =>
  EffectLine.unwrapScoped(Effect.gen(function*() {
    const store = yield* LockStore
    const validName = yield* Options.validateName(name, store)
    const resolved = yield* ElectionOptions.resolveWatch(yield* LockDefaults, options)
    const step = watcher(store, validName, resolved, yield* Effect.scope, yield* monotonicMillis)
    return EffectLine.fromEffectRepeat(step)
  })).pipe(Stream.withSpan("LeaderElection.leader", { attributes: { "lock.name": name }, captureStackTrace: false }))
