/**
 * `LeaderElection.leader`: who leads, as a watcher that only reads sees it. One `inspect` right away and then every
 * poll interval; the last record read is judged by the clock at each poll, so a leader whose lease runs out turns
 * into none even when the store does not answer.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type * as LeaderElection from "../LeaderElection.js"
import type { LockConfigError, LockStoreError } from "../LockError.js"
import type { LockRecord } from "../LockRecord.js"
import { LockStore } from "../LockStore.js"
import { monotonicMillis } from "./clock.js"
import { LockDefaults } from "./defaults.js"
import * as ElectionOptions from "./leaderElectionOptions.js"
import * as Options from "./options.js"

/** What one watcher has learned: the last record it read, and since when (its monotonic ms) it has been unchanged. */
interface Watched {
  record: LockRecord | undefined
  unchangedSince: number
  /** Failed reads in a row. */
  failures: number
}

const sameState = (a: LockRecord | undefined, b: LockRecord | undefined): boolean =>
  a === undefined || b === undefined
    ? a === b
    : a.owner === b.owner && a.fence === b.fence && a.version === b.version

/**
 * The leader the last record names, if its lease has not run out as far as the watcher can tell: "absolute", until
 * `leaseUntil` on the watcher's wall clock (`wallNow`); "observed", until the record has stayed unchanged for its
 * `leaseMs` on the watcher's monotonic clock (`now`).
 *
 * @internal
 */
export const leaderOf = (
  record: LockRecord | undefined,
  takeover: "absolute" | "observed",
  unchangedSince: number,
  wallNow: number,
  now: number
): Option.Option<LeaderElection.Leader> => {
  if (record === undefined || record.owner === undefined) return Option.none()
  const over = takeover === "absolute" ? record.leaseUntil <= wallNow : now - unchangedSince >= record.leaseMs
  if (over) return Option.none()
  return Option.some({
    holder: record.holder ?? "",
    owner: record.owner,
    fence: record.fence,
    since: record.acquiredAt ?? record.leaseUntil - record.leaseMs,
    data: record.data
  })
}

/**
 * Whether two values of the stream are the same: both none, or the same term (owner and fence).
 *
 * @internal
 */
export const sameLeader = (
  a: Option.Option<LeaderElection.Leader>,
  b: Option.Option<LeaderElection.Leader>
): boolean =>
  Option.isNone(a) || Option.isNone(b)
    ? Option.isNone(a) && Option.isNone(b)
    : a.value.owner === b.value.owner && a.value.fence === b.value.fence

const poll = (
  store: LockStore,
  name: string,
  resolved: ElectionOptions.ResolvedWatch,
  watched: Watched
): Effect.Effect<Option.Option<LeaderElection.Leader>, LockStoreError> =>
  Effect.gen(function*() {
    const read = yield* Effect.either(store.inspect(name))
    const now = yield* monotonicMillis
    if (read._tag === "Left") {
      const error = read.left
      if (!error.retryable) return yield* Effect.fail(error)
      watched.failures += 1
      const log = watched.failures === 1 ? Effect.logWarning : Effect.logDebug
      yield* log(
        `watching the leader of "${name}": reading the store failed (${error.message}); judging the last record ` +
          `read by the clock and trying again in ${resolved.pollIntervalMs} ms`
      ).pipe(Effect.annotateLogs({ lock: name, failures: watched.failures }))
    } else {
      if (watched.failures > 0) {
        yield* Effect.logInfo(`watching the leader of "${name}": the store answers again`).pipe(
          Effect.annotateLogs({ lock: name, failures: watched.failures })
        )
      }
      watched.failures = 0
      const record = Option.getOrUndefined(read.right)
      if (!sameState(watched.record, record)) watched.unchangedSince = now
      watched.record = record
    }
    const wallNow = yield* Clock.currentTimeMillis
    return leaderOf(watched.record, resolved.takeover, watched.unchangedSince, wallNow, now)
  })

/** @internal */
export const leader = (
  name: string,
  options?: LeaderElection.WatchOptions
): Stream.Stream<Option.Option<LeaderElection.Leader>, LockStoreError | LockConfigError, LockStore> =>
  Stream.unwrap(Effect.gen(function*() {
    const store = yield* LockStore
    const validName = yield* Options.validateName(name, store.maxNameBytes)
    const resolved = yield* ElectionOptions.resolveWatch(yield* LockDefaults, options)
    const watched: Watched = { record: undefined, unchangedSince: yield* monotonicMillis, failures: 0 }
    const next = poll(store, validName, resolved, watched)
    const later = Effect.zipRight(Effect.sleep(Duration.millis(resolved.pollIntervalMs)), next)
    return Stream.concat(Stream.fromEffect(next), Stream.repeatEffect(later)).pipe(Stream.changesWith(sameLeader))
  })).pipe(Stream.withSpan("LeaderElection.leader", { attributes: { "lock.name": name }, captureStackTrace: false }))
