/**
 * Leader election on the lock: among the processes that campaign for one name, at most one is the leader at a time,
 * and it leads for exactly as long as it holds the lock of that name. A term is one acquisition of the lock; it keeps
 * every guarantee of `Lock.acquire` (heartbeat, interruption on loss, a fencing token, takeover of a crashed leader at
 * `leaseUntil + maxClockSkew` or in observed mode, release when it ends).
 *
 * - `run` campaigns until elected, runs the leader's effect for the term, campaigns again when the term is lost, and
 *   returns when the leader's effect ends.
 * - `leader` watches who leads, without taking part: a `Stream` of the current leader, polled from the store.
 *
 * @example
 * ```ts
 * import { LeaderElection, LockStore } from "@leasehold/lock"
 * import { Effect, Option, Stream } from "effect"
 *
 * // Every replica runs this; one of them at a time runs the compaction loop, with its term's fence.
 * const compact = (fence: number) => Effect.log(`compacting, fence ${fence}`)
 * const replica = LeaderElection.run("compactor", (term) => compact(term.fence), { lease: "15 seconds" })
 *
 * // Anyone may watch who leads (one store read per poll).
 * const watch = LeaderElection.leader("compactor").pipe(
 *   Stream.take(1),
 *   Stream.runForEach((leader) =>
 *     Effect.log(Option.match(leader, { onNone: () => "no leader", onSome: (l) => `led by ${l.holder}` }))
 *   )
 * )
 *
 * Effect.runPromise(Effect.andThen(replica, watch).pipe(Effect.provide(LockStore.layerMemory)))
 * ```
 *
 * @since 1.0.0
 */
import type * as LeaderWatch from "@leasehold/core/election/LeaderWatch"
import * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as Stream from "effect/Stream"
import type { DurationInput } from "./internal/effectLine.js"
import * as internal from "./internal/election/leaderElection.js"
import * as ElectionDefaults from "./internal/election/leaderElectionOptions.js"
import * as watch from "./internal/election/leaderWatch.js"
import type { Lease } from "./Lease.js"
import type { LockOptions } from "./Lock.js"
import type { LockConfigError, LockNotAcquired, LockStoreError } from "./LockError.js"
import type { LockStore } from "./LockStore.js"

/**
 * One term of leadership: one acquisition of the election's lock, from election to resignation or loss.
 *
 * @since 1.0.0
 * @category models
 */
export interface Term {
  /** The election's name: the lock's name. */
  readonly name: string
  /** Random per term (the lock's owner id). */
  readonly owner: string
  /** The readable name of this process (the `holder` option). */
  readonly holder: string
  /**
   * The term's fencing token: strictly greater than every earlier term's of this election. Pass it with every write
   * the leader makes, so that downstream systems can refuse the writes of a leader that has been replaced.
   */
  readonly fence: number
  /** When the term began: epoch ms on this process's clock, when the acquiring write was sent. */
  readonly since: number
  /**
   * The held lock: its status, its changes, and `lost`, which fails once the term is lost. The leader's effect holds
   * it: a `Lock.withLock(name, (lease) => ...)` or `Lock.acquire(name)` of the election's name inside the term
   * re-enters it and gets this lease.
   */
  readonly lease: Lease
}

/**
 * A leader as a watcher sees it in the store.
 *
 * @since 1.0.0
 * @category models
 */
export type Leader = LeaderWatch.Leader

/**
 * Options of `run`: the lock's options but `wait` (a campaign waits as long as it takes), and what to do when the
 * store fails while campaigning.
 *
 * `lease`, `heartbeat`, `maxClockSkew`, `safetyMargin`, `warnAt` and `takeover` are the lock's, and decide how fast
 * a crashed leader is replaced: a follower takes over at most `lease + maxClockSkew + pollInterval` after the
 * crashed leader's last renew (absolute takeover). `pollInterval` is how often a follower's campaign asks the store.
 * `holder` names this process to the others (and to `leader` watchers); `data` is stored with the lock for the term.
 *
 * @since 1.0.0
 * @category models
 */
export interface ElectionOptions extends Omit<LockOptions, "wait"> {
  /**
   * After a campaign that ended with a store error, the next one waits `pollInterval`, doubling with each failure in
   * a row (jittered: between half and all of it), but never longer than this. Default: `lease`.
   */
  readonly maxBackoff?: DurationInput | undefined
  /**
   * How many campaigns in a row may end with a store error before `run` fails with the last one: a whole number of at
   * least 1, or "forever". Default: "forever", so that a store outage or a misconfiguration is logged (a warning per
   * failure) and outlived rather than fatal; set a number to let a supervisor restart the process instead.
   */
  readonly maxCampaignFailures?: number | "forever" | undefined
}

/**
 * Options of `leader`.
 *
 * @since 1.0.0
 * @category models
 */
export interface WatchOptions {
  /**
   * How often the watcher reads the store: one `inspect` per poll (two for a leader under a lease session, whose
   * session's record is read too). Default: 1 second.
   */
  readonly pollInterval?: DurationInput | undefined
  /**
   * When a leader whose record is still in the store counts as gone. "absolute": once its `leaseUntil` has passed on
   * the watcher's wall clock. "observed": once the watcher has seen its record unchanged (same owner, fence and
   * version) for a full lease on its own monotonic clock, trusting no wall clock. Default: the app-wide
   * `Lock.LockDefaults` value, else "absolute".
   */
  readonly takeover?: "absolute" | "observed" | undefined
}

/**
 * Campaigns for leadership of `name` and runs `leader` for each term this process wins, until `leader` ends.
 *
 * - Campaigning is a waiting `Lock.acquire` (`wait: "forever"`): it polls like any waiting acquire and takes over a
 *   crashed leader's lock at `leaseUntil + maxClockSkew` (or in observed mode).
 * - Elected, it runs `leader(term)` in a fiber of its own. If the term is lost (its lease ran out before a renew
 *   succeeded, or another owner took the lock), that fiber is interrupted before the lease could be taken over, the
 *   lock is given back if it is still ours, and the campaign starts again. The next term has a higher fence.
 * - If `leader` succeeds, the process resigns (releases the lock) and `run` succeeds with its value; if it fails, the
 *   process resigns and `run` fails with its error. If `run` is interrupted, it resigns too.
 * - A store error that ends a campaign is logged as a warning and the campaign starts again after a backoff (see
 *   `ElectionOptions`); retryable errors in the middle of a campaign are retried by the waiting acquire itself, one
 *   per poll interval. `run` fails with `LockStoreError` only after `maxCampaignFailures` failed campaigns in a row.
 * - Under a lease session (`LeaseSession`), each term's lock is held under the session, with no heartbeat of its own:
 *   the session's loss ends the term, and since no campaign under a lost session can win, `run` then fails with the
 *   `LockNotAcquired` that names the session. Watchers (`leader`) judge such a leader by its session's lease.
 *
 * The name and the options are checked before any store call (`LockConfigError`). Traced as a `LeaderElection.run`
 * span, with a `LeaderElection.campaign` span per campaign (the lock's name, holder, and once elected its owner and
 * fence; `Lock.acquire` is its child) and a `LeaderElection.term` span per term.
 *
 * @example
 * ```ts
 * import { LeaderElection, LockStore } from "@leasehold/lock"
 * import { Console, Effect } from "effect"
 *
 * // A downstream write that refuses fences lower than the last one it accepted.
 * const publish = (batch: number, fence: number) => Effect.log(`batch ${batch} published with fence ${fence}`)
 *
 * const leader = (term: LeaderElection.Term) =>
 *   Effect.gen(function*() {
 *     yield* Effect.log(`${term.holder} leads "${term.name}" since ${new Date(term.since).toISOString()}`)
 *     for (let batch = 1; batch <= 3; batch++) {
 *       yield* publish(batch, term.fence)
 *       yield* Effect.sleep("1 second")
 *     }
 *     return "published"
 *   })
 *
 * const program = LeaderElection.run("publisher", leader, {
 *   lease: "10 seconds",
 *   holder: "publisher-1",
 *   // Crash (and let the supervisor restart us) after 5 failed campaigns in a row.
 *   maxCampaignFailures: 5
 * })
 *
 * Effect.runPromise(program.pipe(Effect.flatMap(Console.log), Effect.provide(LockStore.layerMemory)))
 * // Output: published
 * ```
 *
 * @since 1.0.0
 * @category combinators
 */
export const run: <A, E, R>(
  name: string,
  leader: (term: Term) => Effect.Effect<A, E, R>,
  options?: ElectionOptions
) => Effect.Effect<A, E | LockStoreError | LockConfigError | LockNotAcquired, R | LockStore> = internal.run

/**
 * Watches who leads `name`, without taking part in the election: emits the current leader (`Option.none()` when
 * there is none) once, then again on every change. A change is another term (another owner and fence), or a leader
 * appearing or going; a leader that is still the same is not emitted again.
 *
 * A leader counts as none once its lease has run out as far as the watcher can tell (see `WatchOptions.takeover`):
 * in "absolute" mode when the record's `leaseUntil` has passed on the watcher's clock. A live leader renews every
 * heartbeat, so a watcher whose clock is within `lease - heartbeat` of the leader's never misses it; a leader that
 * crashed counts as none from its `leaseUntil` on, before a follower may take over (`leaseUntil + maxClockSkew`).
 *
 * It reads the store once right away and then a `pollInterval` after each read ends: one `inspect` per poll, one at a
 * time, nothing written. The last record read is judged by the clock whenever a read ends and also at the moment the
 * leader it names runs out of lease, so a known leader turns into none then even while the store is unreachable,
 * whether its reads fail or hang. A read that fails with a retryable error is logged (a warning at the first, then at
 * debug level); a non-retryable error fails the stream. The name and the options are checked before the first read
 * (`LockConfigError`). Traced as a `LeaderElection.leader` span that lasts as long as the stream runs.
 *
 * @example
 * ```ts
 * import { LeaderElection, LockStore } from "@leasehold/lock"
 * import { Console, Effect, Option, Stream } from "effect"
 *
 * // A follower forwards requests to the leader's address, which the leader stores with its term (`data`).
 * const leaderAddress = LeaderElection.leader("api-primary", { pollInterval: "2 seconds" }).pipe(
 *   Stream.tap((leader) =>
 *     Effect.log(Option.match(leader, { onNone: () => "no leader: holding requests", onSome: (l) => l.holder }))
 *   ),
 *   // Only terms that say where the leader is.
 *   Stream.map(Option.flatMap((term) => term.data === undefined ? Option.none() : Option.some(term.data))),
 *   Stream.filter(Option.isSome),
 *   Stream.map((address) => address.value)
 * )
 *
 * const primary = LeaderElection.run(
 *   "api-primary",
 *   () => Effect.sleep("5 seconds"),
 *   { data: "http://10.0.0.7:8080", holder: "api-7" }
 * )
 *
 * const program = Effect.gen(function*() {
 *   yield* Effect.forkScoped(primary)
 *   // The first read may come before the election: "no leader", then "api-7" two seconds later.
 *   const address = yield* Stream.runHead(leaderAddress)
 *   yield* Console.log(Option.getOrElse(address, () => "none"))
 *   // Output: http://10.0.0.7:8080
 * }).pipe(Effect.scoped)
 *
 * Effect.runPromise(program.pipe(Effect.provide(LockStore.layerMemory)))
 * ```
 *
 * @since 1.0.0
 * @category constructors
 */
export const leader: (
  name: string,
  options?: WatchOptions
) => Stream.Stream<Option.Option<Leader>, LockStoreError | LockConfigError, LockStore> = watch.leader

/**
 * The built-in defaults of the options that are the election's own, for documentation and tools.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaults = {
  watchPollInterval: Duration.millis(ElectionDefaults.defaultWatchPollIntervalMs),
  maxCampaignFailures: "forever"
} as const
