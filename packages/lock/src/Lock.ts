/**
 * Distributed locks as scoped Effect resources: `withLock` runs a section while holding a lock, `acquire` holds one
 * until the scope closes. Both need a `LockStore` (`LockStore.layerMemory` in one process, the DynamoDB store across
 * processes).
 *
 * @example
 * ```ts
 * import { Lock, LockStore } from "@leasehold/lock"
 * import { Effect } from "effect"
 *
 * const sendReport = Effect.log("sending the nightly report")
 * const writeOrder = (order: { readonly id: string; readonly fence: number }) =>
 *   Effect.log(`order ${order.id} written with fence ${order.fence}`)
 *
 * // A section: the lock is released as soon as it ends.
 * const nightly = sendReport.pipe(Lock.withLock("nightly-report", { wait: "30 seconds" }))
 *
 * // A scoped resource: held until the scope closes, with a fencing token for downstream writes.
 * const order = Effect.gen(function*() {
 *   const lease = yield* Lock.acquire("orders/42", { wait: "30 seconds" })
 *   yield* writeOrder({ id: "42", fence: lease.fence })
 * }).pipe(Effect.scoped)
 *
 * Effect.runPromise(Effect.all([nightly, order]).pipe(Effect.provide(LockStore.layerMemory)))
 * ```
 *
 * @since 1.0.0
 */
import type * as Config from "effect/Config"
import type * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { ConfigError, DurationInput, ReferenceLayer } from "./internal/effectLine.js"
import * as Resume from "./internal/handoff/resume.js"
import * as internal from "./internal/lock/lock.js"
import * as Locks from "./internal/lock/locks.js"
import * as Defaults from "./internal/options/defaults.js"
import * as Options from "./internal/options/options.js"
import type { Lease } from "./Lease.js"
import type { LeaseHandoff } from "./LeaseHandoff.js"
import type { LockConfigError, LockLost, LockNotAcquired, LockStoreError } from "./LockError.js"
import type { LockStore } from "./LockStore.js"

/**
 * Options of one acquisition. Every field is optional; defaults come from `LockDefaults` (set app-wide with
 * `layerDefaults` or `layerDefaultsConfig`), then from the named constants below.
 *
 * @since 1.0.0
 * @category models
 */
export interface LockOptions {
  /** How long a lease lasts without a renew. Default: 30 seconds. */
  readonly lease?: DurationInput | undefined
  /**
   * How often the holder renews. Default: lease / 3. Must leave room: heartbeat < lease - safetyMargin. The first renew
   * goes at a random point in the second half of the first heartbeat (from Effect's `Random`), so that leases acquired
   * together do not renew together; each later one a heartbeat after the previous one was sent.
   */
  readonly heartbeat?: DurationInput | undefined
  /** How long to wait for a held lock, or "forever". Default: zero, a single attempt. */
  readonly wait?: DurationInput | "forever" | undefined
  /** The bound on clock differences between hosts (absolute takeover). Default: 10 seconds. */
  readonly maxClockSkew?: DurationInput | undefined
  /** Report "at risk" once less than this is left before the local deadline. Default: lease / 3. */
  readonly warnAt?: DurationInput | undefined
  /** The critical section is interrupted this long before the lease ends. Default: lease / 10. */
  readonly safetyMargin?: DurationInput | undefined
  /** The longest a waiter sleeps between attempts (jittered). Default: lease / 10, at most 1 second. */
  readonly pollInterval?: DurationInput | undefined
  /**
   * How a dead holder's lock is taken over. "absolute" (default): at leaseUntil + maxClockSkew, trusting clocks
   * within the bound. "observed": only after watching the lease stay unrenewed for a full lease on the local
   * monotonic clock, trusting no wall clock.
   */
  readonly takeover?: "absolute" | "observed" | undefined
  /** A readable name for this process, shown to other holders and operators. Default: "pid <pid>". */
  readonly holder?: string | undefined
  /** A payload stored with the lock while held (already encoded, e.g. with Schema). */
  readonly data?: string | undefined
}

/**
 * App-wide defaults for every acquisition in its context; per-call options override them field by field.
 *
 * @since 1.0.0
 * @category tags
 */
export const LockDefaults: typeof Defaults.LockDefaults = Defaults.LockDefaults

/**
 * @since 1.0.0
 * @category tags
 */
export type LockDefaults = Defaults.LockDefaults

/**
 * Sets app-wide defaults.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerDefaults: (options: LockOptions) => ReferenceLayer<LockDefaults> = Defaults.layerDefaults

/**
 * Reads app-wide defaults from `Config`: `LEASEHOLD_LEASE`, `LEASEHOLD_HEARTBEAT`, `LEASEHOLD_WAIT` (a duration or
 * "forever"), `LEASEHOLD_MAX_CLOCK_SKEW`, `LEASEHOLD_WARN_AT`, `LEASEHOLD_SAFETY_MARGIN`, `LEASEHOLD_POLL_INTERVAL`,
 * `LEASEHOLD_TAKEOVER` ("absolute" | "observed"), `LEASEHOLD_HOLDER`. Durations are written as Effect writes them
 * ("30 seconds", "500 millis"). Unset keys keep the built-in defaults; values are checked where they are used.
 *
 * @since 1.0.0
 * @category layers
 */
export const defaultsConfig: Config.Config<LockOptions> = Defaults.defaultsConfig

/**
 * App-wide defaults from `defaultsConfig`. A value that is not a valid duration (negative, NaN, over the timer limit)
 * fails the layer with `LockConfigError`, at startup rather than at the first lock.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerDefaultsConfig: ReferenceLayer<LockDefaults, ConfigError | LockConfigError> =
  Defaults.layerDefaultsConfig

/**
 * Acquires a lock as a scoped resource: held until the scope closes, kept alive by a heartbeat fiber.
 *
 * If the lease is lost, the code that relies on it is interrupted: the fiber that acquired it and, when that fiber
 * ended while the scope stays open (`Effect.timeout`, `Effect.race` or a concurrent `Effect.all` around the acquire,
 * a layer built from it), the fiber that took its result over. Their scope then closes. An interrupted fiber can only
 * end interrupted, so the loss is a failure only where a boundary around that code can say so: open the scope with
 * `Lock.scoped` rather than `Effect.scoped`, and the region fails with the `LockLost` (its reason, and the new holder
 * when known); under `Effect.scoped` the program ends interrupted, and `lease.status` and `lease.lost` say why.
 * `withLock` fails with `LockLost` too.
 *
 * On Effect 4 only the region can say which fiber took a wrapped acquire's result over: there, outside `Lock.scoped`
 * a wrapped acquire is refused: a warning when its fiber ends with the lease held, and the scope fails with a defect
 * as it closes, after the lock is released, since a loss could have stopped nothing. On Effect 3 `Effect.scoped` stops
 * the same code as `Lock.scoped` does, and ends interrupted.
 *
 * Acquiring a name that the current fiber is already inside a live lease of (its own, or one held by the fiber it
 * was forked from) re-enters: the same lease is returned, no store call is made, and the outer acquisition still
 * releases it. The re-entering fiber is then interrupted when that lease ends, by loss or by release, if its own
 * scope is still open.
 *
 * @example
 * ```ts
 * import { Lock, LockStore } from "@leasehold/lock"
 * import { Console, Effect } from "effect"
 *
 * // A downstream write that refuses fences lower than the last one it accepted.
 * const saveInvoice = (invoice: { readonly orderId: string; readonly fence: number }) =>
 *   Effect.log(`invoice for order ${invoice.orderId}, fence ${invoice.fence}`)
 *
 * const program = Effect.gen(function*() {
 *   const lease = yield* Lock.acquire("orders/42", { wait: "10 seconds", holder: "billing-worker-1" })
 *   yield* saveInvoice({ orderId: "42", fence: lease.fence })
 *   yield* Console.log(lease.holder, yield* lease.isHeld)
 *   // Output: billing-worker-1 true
 * }).pipe(
 *   // The lock is released when the scope closes.
 *   Effect.scoped
 * )
 *
 * Effect.runPromise(program.pipe(Effect.provide(LockStore.layerMemory)))
 * ```
 *
 * @since 1.0.0
 * @category constructors
 */
export const acquire: (
  name: string,
  options?: LockOptions
) => Effect.Effect<Lease, LockNotAcquired | LockStoreError | LockConfigError, LockStore | Scope.Scope> =
  internal.acquire

/**
 * `Effect.scoped` for code that relies on leases: runs `self` in a scope, in a fiber of its own (the region's), and
 * fails with `LockLost` when a lease stops it, where `Effect.scoped` would end interrupted.
 *
 * The region's fiber relies on the leases acquired in it: those it acquires, any whose acquiring fiber ends while the
 * lease is held and `self` still runs (an acquire inside `Effect.timeout`, `Effect.race`, a concurrent `Effect.all` or
 * a layer build), which it takes over and re-enters on a nested acquire of its name, as do the fibers it forks
 * afterwards (fibers it forked before never do), and a lease held outside the region that it re-enters. When one of
 * them is lost, handed off by another fiber, or (re-entered) released by its outer acquisition, the region's fiber is
 * interrupted and the region fails with that lease's `LockLost`, the first one if two end at once. What else happens
 * stays as it is: the caller's interrupt (or a timeout around the region) and the program's own interrupt are
 * interruptions, and a program that had already succeeded or failed when a loss came as the scope closed keeps its
 * result. The fibers `self` forks stop with the region's fiber on a loss; otherwise they run on after it, as after
 * `Effect.scoped`, until the caller's fiber ends. On Effect 3 the caller then takes over, as after `Effect.scoped`, the
 * fiber-local values `self` set and a lease it acquired into a scope that outlives the region (its loss interrupts the
 * caller); on Effect 4 such a lease is refused, as any lease that outlives the region.
 *
 * With `withLock`, or an acquire whose own fiber goes on under the lease, `Effect.scoped` stops the code as well, but
 * ends interrupted. On Effect 3 `Effect.scoped` also hands a wrapped acquire's lease over (the fiber that takes a
 * child's result over takes its leases over too); Effect 4 has no such hook and needs `Lock.scoped` for it. Code
 * written with `Lock.scoped` is stopped by a loss, and fails with it, the same way on both lines.
 *
 * @example
 * ```ts
 * import { Lock, LockStore } from "@leasehold/lock"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   // Give up on the lock after five seconds; if it is taken, a loss stops this code and fails the region.
 *   const lease = yield* Effect.timeout(Lock.acquire("reports/daily", { wait: "1 minute" }), "5 seconds")
 *   yield* Effect.log(`writing the report under fence ${lease.fence}`)
 * }).pipe(Lock.scoped)
 *
 * // A loss is a failure like any other: here it is logged, and the program goes on.
 * const report = program.pipe(Effect.catchTag("LockLost", (lost) => Effect.log(`report stopped: ${lost.reason}`)))
 *
 * Effect.runPromise(report.pipe(Effect.provide(LockStore.layerMemory)))
 * ```
 *
 * @since 1.0.0
 * @category combinators
 */
export const scoped: <A, E, R>(
  self: Effect.Effect<A, E, R>
) => Effect.Effect<A, E | LockLost, Exclude<R, Scope.Scope>> = internal.scoped

/**
 * Runs a section while holding the lock `name`, and releases it as soon as the section ends. If the lease is lost, the
 * section is interrupted and the result is a `LockLost` failure. Does not require `Scope`.
 *
 * The section is a program, or a function of the lease that makes it: `withLock(name, (lease) => program)` hands the
 * section the lease it runs under, for the fencing token (`lease.fence`) of its downstream writes and its status. The
 * function is called once the lock is held, in the section's fiber; a function that throws fails the section with
 * that defect. Pipeable, with a program: `program.pipe(withLock(name, options?))`.
 *
 * Inside a live lease of the same name (see `acquire`), it re-enters, and a function of the lease gets that lease; the
 * section then ends with that lease, and if the outer acquisition releases it first, the result is a `LockLost` with
 * reason "released".
 *
 * @example
 * ```ts
 * import { Lock, LockStore } from "@leasehold/lock"
 * import { Effect } from "effect"
 *
 * // A downstream write that refuses fences lower than the last one it accepted.
 * const writeLedger = (entry: { readonly account: string; readonly fence: number }) =>
 *   Effect.log(`ledger entry for ${entry.account}, fence ${entry.fence}`)
 *
 * // The section gets the lease it runs under, and passes its fence with every write.
 * const settle = Lock.withLock("ledger/acme", (lease) => writeLedger({ account: "acme", fence: lease.fence }))
 *
 * const rotateKeys = Effect.log("rotating the signing keys")
 *
 * const program = rotateKeys.pipe(
 *   // One instance at a time; `wait` is zero by default, so a held lock fails at once.
 *   Lock.withLock("key-rotation"),
 *   // Another instance is rotating: skip this run.
 *   Effect.catchTag("LockNotAcquired", (error) => Effect.log(`skipped: ${error.message}`))
 * )
 *
 * // The same, data-first, waiting up to a minute for the lock.
 * const patient = Lock.withLock("key-rotation", rotateKeys, { wait: "1 minute" })
 *
 * Effect.runPromise(Effect.all([settle, program, patient]).pipe(Effect.provide(LockStore.layerMemory)))
 * ```
 *
 * @since 1.0.0
 * @category combinators
 */
export const withLock: {
  // Tried first, so that an argument typed `any` stays options. TypeScript types a section's parameter at this first
  // try and keeps that type (an `Effect.fn(function*(lease) {...})` would keep `any`), so the options also name a
  // function of the lease: one that returns no program, which no section is.
  (name: string, options?: LockOptions | ((lease: Lease) => never)): <A, E, R>(
    self: Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | LockNotAcquired | LockLost | LockStoreError | LockConfigError, R | LockStore>
  <A, E, R>(
    name: string,
    section: (lease: Lease) => Effect.Effect<A, E, R>,
    options?: LockOptions
  ): Effect.Effect<A, E | LockNotAcquired | LockLost | LockStoreError | LockConfigError, R | LockStore>
  <A, E, R>(
    name: string,
    self: Effect.Effect<A, E, R>,
    options?: LockOptions
  ): Effect.Effect<A, E | LockNotAcquired | LockLost | LockStoreError | LockConfigError, R | LockStore>
} = internal.withLock

/**
 * Options of `withLocks`: a lock's, for every lock of the set, and how the locks are taken.
 *
 * @since 1.0.0
 * @category models
 */
export interface WithLocksOptions extends LockOptions {
  /**
   * Take the locks in one transaction when the store can write several items at once (DynamoDB and DynamoDB Local;
   * not dynalite) and every one is free: two calls (the transaction, and a read of the new fences) instead of one per
   * lock, at twice the write units of the take and one read unit per lock. When one is held or reserved, or the store
   * has no transactions, they are taken one at a time as without it. Default: `false`, one at a time.
   */
  readonly transaction?: boolean | undefined
}

/**
 * Runs a section while holding every lock of `names`, all or none, and releases them as soon as the section ends.
 *
 * - **No deadlock.** The locks are taken one after another in one order (their names' UTF-16 code units), whatever
 *   order they were given in, so that processes asking for overlapping sets never wait on each other in a cycle. A
 *   name given twice is taken once.
 * - **All or none.** If a lock can not be taken (`LockNotAcquired`, a store error), the ones already taken are given
 *   back, last first, and the section never runs. `wait` bounds the whole: each lock may wait what the ones before it
 *   left of it.
 * - **Loss.** The section runs in a fiber that the loss of any of the locks interrupts; the result is then that lock's
 *   `LockLost`.
 * - **Fences.** A function section gets the leases, one for each name in the order the names were given (a name given
 *   twice, its one lease twice), for the fencing token of each lock (`lease.fence`).
 *
 * Each name is checked before any lock is taken. A name the fiber already holds is re-entered, as `withLock` re-enters
 * it. With `transaction`, free locks are taken in one store call where the store can (`WithLocksOptions`). Pipeable,
 * with a program: `program.pipe(withLocks(names, options?))`.
 *
 * @example
 * ```ts
 * import { Lock, LockStore } from "@leasehold/lock"
 * import { Effect } from "effect"
 *
 * // A transfer touches two accounts: hold both, whichever order another transfer names them in.
 * const transfer = (from: string, to: string, amount: number) =>
 *   Lock.withLocks(
 *     [`account/${from}`, `account/${to}`],
 *     ([source, target]) =>
 *       Effect.log(`moving ${amount} from ${from} (fence ${source.fence}) to ${to} (fence ${target.fence})`),
 *     { wait: "10 seconds" }
 *   )
 *
 * Effect.runPromise(
 *   Effect.all([transfer("alice", "bob", 5), transfer("bob", "alice", 3)], { concurrency: "unbounded" }).pipe(
 *     Effect.provide(LockStore.layerMemory)
 *   )
 * )
 * ```
 *
 * @since 1.0.0
 * @category combinators
 */
export const withLocks: {
  (names: Iterable<string>, options?: WithLocksOptions | ((leases: ReadonlyArray<Lease>) => never)): <A, E, R>(
    self: Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | LockNotAcquired | LockLost | LockStoreError | LockConfigError, R | LockStore>
  <const Names extends ReadonlyArray<string>, A, E, R>(
    names: Names,
    section: (leases: { readonly [K in keyof Names]: Lease }) => Effect.Effect<A, E, R>,
    options?: WithLocksOptions
  ): Effect.Effect<A, E | LockNotAcquired | LockLost | LockStoreError | LockConfigError, R | LockStore>
  <A, E, R>(
    names: Iterable<string>,
    section: (leases: ReadonlyArray<Lease>) => Effect.Effect<A, E, R>,
    options?: WithLocksOptions
  ): Effect.Effect<A, E | LockNotAcquired | LockLost | LockStoreError | LockConfigError, R | LockStore>
  <A, E, R>(
    names: Iterable<string>,
    self: Effect.Effect<A, E, R>,
    options?: WithLocksOptions
  ): Effect.Effect<A, E | LockNotAcquired | LockLost | LockStoreError | LockConfigError, R | LockStore>
} = Locks.withLocks

/**
 * Options of a resumed lease: how it is kept, as for an acquisition. The lease duration is the hand-off's; given, it
 * must be the same. Waiting, takeover, holder and data do not apply: a resume takes nothing over, and the record keeps
 * the holder and data it was acquired with.
 *
 * @since 1.0.0
 * @category models
 */
export type ResumeOptions = Pick<LockOptions, "lease" | "heartbeat" | "warnAt" | "safetyMargin">

/**
 * Hands a held lease over to another process (or a later invocation of the same function), which resumes it with
 * `resume` or `withResumed`: the lock never becomes free in between, and its fence stays the same.
 *
 * This process stops keeping the lease without releasing it: a renew in flight is waited for, the heartbeat stops,
 * the status becomes `HandedOff`, the other fibers of this process that rely on the lease are interrupted (a
 * `withLock` section then fails with `LockLost`, reason "handedOff"), its fibers waiting for the name go to the
 * store like any other process's, and the lease's scope releases nothing when it closes. The calling fiber is not
 * interrupted: it must not act under the lease once it has handed it off, nor should anything it forked.
 *
 * The value is a capability: whoever holds it can hold the lock until its `leaseUntil`. Send it as you would a
 * secret, and resume it once (see `resume`). A lease already lost fails with that `LockLost`; one released or handed
 * off already, with reason "released" or "handedOff".
 *
 * @example
 * ```ts
 * import { Lock, LockStore } from "@leasehold/lock"
 * import { Console, Effect } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   // This invocation acquires the lock, does what it has time for, and hands the lease on.
 *   const handoff = yield* Effect.scoped(Effect.gen(function*() {
 *     const lease = yield* Lock.acquire("reindex", { lease: "5 minutes" })
 *     yield* Console.log("first part")
 *     return yield* Lock.handOff(lease)
 *   }))
 *   // The next one (here the same process) resumes it: the same fence, a new owner id, one write.
 *   yield* Effect.scoped(Effect.gen(function*() {
 *     const lease = yield* Lock.resume(handoff)
 *     yield* Console.log("second part", lease.fence === handoff.fence && lease.owner !== handoff.owner)
 *   }))
 * })
 * // Output: first part
 * // second part true
 *
 * Effect.runPromise(program.pipe(Effect.provide(LockStore.layerMemory)))
 * ```
 *
 * @since 1.0.0
 * @category hand-off
 */
export const handOff: (lease: Lease) => Effect.Effect<LeaseHandoff, LockLost> = Resume.handOff

/**
 * Resumes a lease another process handed off with `handOff`, as a scoped resource, like `acquire`: one conditional
 * write (the store's renew, on the hand-off's owner and fence) extends it and moves it to a new owner id, and from then on it is kept as an acquired
 * lease is: heartbeat, "at risk" warnings, loss interruption, release when the scope closes. Its local deadline counts
 * from just before that write was sent.
 *
 * Fails with `LockLost` if the lease can not be resumed: reason "expired", with no write, once the hand-off's
 * `leaseUntil` has passed on this process's clock (whatever the store would say); reason "stolen" if the store
 * has another owner (in `by`), as after the hand-off was resumed once already; reason "freed" if it has none (an
 * operator released it, or it was resumed and released since). With `LockConfigError`,
 * before any store call, if the hand-off is malformed or the options are invalid. After a `LockStoreError` the write
 * may have applied: the lease is released in the background, and the hand-off is spent.
 *
 * A hand-off resumes once: the resuming write moves the lease to a new owner id, so a second resume of it (a
 * duplicated message, a retried invocation) and any late write of the handing-off process find that owner and change
 * nothing.
 *
 * @since 1.0.0
 * @category hand-off
 */
export const resume: (
  handoff: LeaseHandoff,
  options?: ResumeOptions
) => Effect.Effect<Lease, LockLost | LockStoreError | LockConfigError, LockStore | Scope.Scope> = Resume.resume

/**
 * Runs `self` holding a lease another process handed off (see `resume`), and releases it as soon as `self` ends. If
 * the lease is lost, `self` is interrupted and the result is a `LockLost` failure, as with `withLock`.
 *
 * @example
 * ```ts
 * import { Lock, LockStore } from "@leasehold/lock"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const handoff = yield* Effect.scoped(Effect.flatMap(Lock.acquire("migration"), Lock.handOff))
 *   // Pipeable, like withLock; or data-first: Lock.withResumed(handoff, finishMigration).
 *   yield* Effect.log("finishing the migration").pipe(Lock.withResumed(handoff))
 * })
 *
 * Effect.runPromise(program.pipe(Effect.provide(LockStore.layerMemory)))
 * ```
 *
 * @since 1.0.0
 * @category hand-off
 */
export const withResumed: {
  (handoff: LeaseHandoff, options?: ResumeOptions): <A, E, R>(
    self: Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | LockLost | LockStoreError | LockConfigError, R | LockStore>
  <A, E, R>(
    handoff: LeaseHandoff,
    self: Effect.Effect<A, E, R>,
    options?: ResumeOptions
  ): Effect.Effect<A, E | LockLost | LockStoreError | LockConfigError, R | LockStore>
} = Resume.withResumed

/**
 * Fails with `LockConfigError` if `options` are invalid, without acquiring anything. Useful at startup.
 *
 * @since 1.0.0
 * @category validation
 */
export const validateOptions: (options: LockOptions) => Effect.Effect<void, LockConfigError> = internal.validateOptions

/**
 * The built-in defaults, for documentation and tools.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaults = {
  lease: Options.defaultLease,
  heartbeatsPerLease: Options.heartbeatsPerLease,
  maxClockSkew: Options.defaultMaxClockSkew,
  warnAtFraction: Options.warnAtFraction,
  safetyMarginFraction: Options.safetyMarginFraction,
  maxPollInterval: Options.maxPollInterval
} as const
