/**
 * The `LockStore` service: the only thing that talks to storage. Every operation is one round trip to the backing
 * store (one conditional write in DynamoDB); the lifecycle (waiting, heartbeats, loss) lives in `Lock`.
 *
 * @since 1.0.0
 */
import * as LockProtocol from "@leasehold/core/store/LockProtocol"
import type * as SemaphoreProtocol from "@leasehold/core/store/SemaphoreProtocol"
import type * as Clock from "effect/Clock"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import * as EffectLine from "./internal/effectLine.js"
import type { Service } from "./internal/effectLine.js"
import * as Background from "./internal/process/background.js"
import * as MemoryStore from "./internal/store/memoryStore.js"
import * as StoreViews from "./internal/store/storeViews.js"
import type { LockStoreError } from "./LockError.js"
import type { LockRecord } from "./LockRecord.js"
import type { SemaphoreOperations } from "./SemaphoreStore.js"

/**
 * How a waiting acquirer may take over a lock whose holder stopped renewing.
 *
 * - `Absolute`: clocks are trusted within `maxClockSkewMs`; a lease is over at `leaseUntil + maxClockSkewMs` on the
 *   acquirer's clock.
 * - `Observed`: no wall clock is trusted; the acquirer may take over only a record it has watched stay unchanged
 *   (same owner, fence and `version`) for a full `leaseMs` on its own monotonic clock, and passes that record as
 *   `stale`. Without `stale`, only a free lock can be taken. The version changes with every renew, so a holder whose
 *   wall clock stopped (and so writes the same `leaseUntil` again) still proves it is alive.
 *
 * @since 1.0.0
 * @category models
 */
export type Takeover = LockProtocol.Takeover

/**
 * The holder an observed-mode acquirer watched go stale.
 *
 * @since 1.0.0
 * @category models
 */
export type StaleObservation = LockProtocol.StaleObservation

/**
 * One acquire attempt.
 *
 * @since 1.0.0
 * @category models
 */
export type AcquireRequest = LockProtocol.AcquireRequest

/**
 * A lock's holder under a lease session that the caller judged dead: its owner and fence, as it read them. An acquire
 * that names it (`AcquireRequest.orphan`) takes the lock from exactly that holder, or a free lock.
 * @since 1.0.0
 * @category models
 */
export type Orphan = LockProtocol.Orphan

/**
 * The outcome of an acquire attempt. `Acquired` carries the new record (with the incremented fence); `Conflict`
 * carries the current holder when the store could tell.
 *
 * @since 1.0.0
 * @category models
 */
export type AcquireResult = LockProtocol.AcquireResult

/**
 * Several free locks to take in one atomic write (`LockStore.tryAcquireAll`).
 *
 * @since 1.0.0
 * @category models
 */
export type AcquireAllRequest = LockProtocol.AcquireAllRequest

/**
 * `Acquired` with every record, `Refused` (one was not free) or `Unsupported` (no atomic write of several items).
 *
 * @since 1.0.0
 * @category models
 */
export type AcquireAllResult = LockProtocol.AcquireAllResult

/**
 * A heartbeat: extend the lease, conditional on owner and fence. With `setData`, the same conditional write also
 * replaces the lock's `data`: a holder updates what it stores with the lock in one write that extends its lease.
 *
 * @since 1.0.0
 * @category models
 */
export type RenewRequest = LockProtocol.RenewRequest

/**
 * `Lost` means the record no longer has this owner and fence; `current` is whoever holds it now, `undefined` when
 * nobody does (the lock is free, or has no record): the holder's `LockLost` says "stolen" or "freed" by it.
 *
 * @since 1.0.0
 * @category models
 */
export type RenewResult = LockProtocol.RenewResult

/**
 * Release, conditional on the owner and, when known, the fence. The fence is unknown only when cleaning up after an
 * acquire whose response never arrived; the owner is unique per acquisition, so it alone identifies the holder.
 *
 * @since 1.0.0
 * @category models
 */
export type ReleaseRequest = LockProtocol.ReleaseRequest

/**
 * @since 1.0.0
 * @category models
 */
export type ReleaseResult = LockProtocol.ReleaseResult

/**
 * A waiting acquisition's claim to be next: `owner` is the acquisition's own owner id (the one its acquire attempts
 * send), and the reservation lasts `reserveMs` from the start of the request, on the caller's clock.
 *
 * @since 1.0.0
 * @category models
 */
export type ReserveRequest = LockProtocol.ReserveRequest

/**
 * `Reserved` carries the record with the new reservation. `NotReserved` carries the current record when the store
 * could tell: the lock is free (there is nobody to wait for), or someone else's reservation is live.
 *
 * @since 1.0.0
 * @category models
 */
export type ReserveResult = LockProtocol.ReserveResult

/**
 * The holder a force release is meant for: its owner and fence, as an operator saw them.
 *
 * @since 1.0.0
 * @category models
 */
export type ForceReleaseHolder = LockProtocol.ForceReleaseHolder

/**
 * A page of a listing. Pass `cursor` back to get the next page; `undefined` means there is no next page.
 *
 * @since 1.0.0
 * @category models
 */
export type ListPage = LockProtocol.ListPage

/**
 * What is wrong with a `list` page size, or `undefined` if it is one every store takes: a whole number of at least 1,
 * or `Infinity` for every record in one page. Stores refuse anything else with a non-retryable `LockStoreError`
 * carrying this message, as DynamoDB refuses such a `Limit`.
 *
 * @since 1.0.0
 * @category validation
 */
export const listLimitProblem: typeof LockProtocol.listLimitProblem = LockProtocol.listLimitProblem

/**
 * The `list` page size when the caller gives none.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultListLimit: typeof LockProtocol.defaultListLimit = LockProtocol.defaultListLimit

/**
 * What to list: names starting with `prefix`, from `cursor`, pages of `limit` (a whole number of at least 1, or
 * `Infinity`; stores may return fewer; default 100).
 *
 * @since 1.0.0
 * @category models
 */
export type ListRequest = LockProtocol.ListRequest

/**
 * A store: what a storage backend implements, and the service `Lock` takes it from. Every operation is one round trip;
 * acquire, renew and release are conditional writes. Time is read from the calling fiber's `Clock` as a request starts.
 *
 * A store is pure operations. What one process keeps locally (the queue of its fibers waiting for a name, the leases
 * its fibers are inside) belongs to `Lock`, kept per store instance: a wrapped store is a store, and a process that
 * provides one store instance everywhere is one process. Its semaphore operations are in `SemaphoreStore`.
 *
 * @since 1.0.0
 * @category models
 */
export interface LockStore extends SemaphoreOperations {
  /**
   * Succeeds if the lock is free, or its holder's lease is over under `takeover`, and no one else's reservation is
   * live: there is none, it is the caller's (`reservedBy = owner`), or it has lapsed (`reservedUntil < now` on the
   * caller's clock). Increments the fence and clears the reservation in the same write. Never a read before the
   * write, never a blind retry of a conflict. A conflict carries the record, reservation included, when it is held
   * or reserved. A store does not retry a write whose outcome it does not know (a timeout, a dropped connection)
   * behind the caller's back: it fails with `LockStoreError` (`mayHaveApplied`), so that the caller knows the write
   * may still land and dates any lease that bears its owner from it. Under a lease session (`session`) the record
   * names it and keeps fixed lease fields that no lease-based takeover passes; only an acquire naming that holder as
   * an `orphan` takes such a lock over.
   */
  readonly tryAcquire: (request: AcquireRequest) => Effect.Effect<AcquireResult, LockStoreError>
  /**
   * Takes several free locks in one atomic write, or none: each as `tryAcquire` takes a lock that has no record or no
   * holder (no takeover), its reservations honoured. `Refused` when any is not free, `Unsupported` when the store can
   * not write several items at once; neither changes anything. As for `tryAcquire`, a write whose outcome the store
   * does not know fails with `LockStoreError` (`mayHaveApplied`) and is not retried. Optional: a store without it is
   * asked for one lock at a time.
   */
  readonly tryAcquireAll?: ((request: AcquireAllRequest) => Effect.Effect<AcquireAllResult, LockStoreError>) | undefined
  /**
   * Sets `leaseUntil` to now + lease, `sequence` to the request's, and changes `version` if owner and fence still match
   * and the request's `sequence` is above the record's; idempotent. Keeps the reservation, and `data` and `owner` unless
   * the request carries `setData` or `newOwner` (then sets them too). So no renew delivered late moves a lease back.
   * With `session`, the lock stays (or is put) under that lease session instead of getting a lease of its own; a renew
   * that moves the owner without one takes the lock out of any session.
   */
  readonly renew: (request: RenewRequest) => Effect.Effect<RenewResult, LockStoreError>
  /**
   * Clears the holder fields if owner (and fence, when given) match; keeps the record, its fence and its
   * reservation, so that the reserved waiter gets in next.
   */
  readonly release: (request: ReleaseRequest) => Effect.Effect<ReleaseResult, LockStoreError>
  /** One lock's record, if it has ever been acquired. */
  readonly inspect: (name: string) => Effect.Effect<Option.Option<LockRecord>, LockStoreError>
  /**
   * Records whose name starts with the prefix, one page at a time. Order is store-defined (the memory store sorts by
   * name; a DynamoDB Scan does not), but following `cursor` to the end yields every record exactly once.
   */
  readonly list: (request: ListRequest) => Effect.Effect<ListPage, LockStoreError>
  /**
   * Reserves a lock for the waiting acquisition `owner`, so that it is the next to acquire it: one conditional write
   * that sets `reservedBy`, `reservedUntil` (now + `reserveMs`) and `reservedSince` (`waitingSince`) if the lock has a
   * record (held, or freed since the caller's conflict: the reserver then acquires at once, ahead of the releaser's
   * next acquire) and no one else's reservation is live (none, the caller's own, or lapsed: `reservedUntil < now` on
   * the caller's clock) or the live one's reserver began to wait later (`reservedSince > waitingSince`). It changes
   * neither `version` nor the holder fields, so an observed-mode waiter still sees a stale holder as stale.
   */
  readonly reserve: (request: ReserveRequest) => Effect.Effect<ReserveResult, LockStoreError>
  /**
   * Admin: clears the holder (and any reservation) and returns the record as it was, if it was held and, when `holder`
   * is given, by that owner with that fence; `None` otherwise. Give the holder an operator saw: a force release that
   * the network delivers late (or that is confirmed late) then frees nothing but that holder's lease, never a later
   * one. Without it, it frees whoever holds the lock when it lands. A store that can not tell whether an attempt it
   * retried was applied (its answer lost, then the retry's condition failed) fails with a `LockStoreError` whose
   * `mayHaveApplied` is true rather than answer `None`: the holder may have been removed.
   */
  readonly forceRelease: (
    name: string,
    holder?: ForceReleaseHolder | undefined
  ) => Effect.Effect<Option.Option<LockRecord>, LockStoreError>
  /**
   * The longest lock name the store can key, in UTF-8 bytes, after any prefix it adds: no longer name is taken. A name
   * within it may still take more than that as a key where the store encodes some characters longer (the DynamoDB
   * store without a prefix escapes `#` and `\`, two bytes each); `nameProblem` is the judge of a given name.
   */
  readonly maxNameBytes: number
  /**
   * Why the store can not key `name` as a lock, or `undefined` if it can: a sentence saying what the name takes as a
   * key, the limit, and why (empty, not well-formed Unicode, or over the key budget, counting what the store's key
   * encoding adds). Every lock operation refuses such a name with a non-retryable `LockStoreError`, unsent; `Lock`,
   * `TypedLock` and `LeaderElection` ask first and fail with `LockConfigError` before any store call. Plain UTF-8
   * length against `maxNameBytes` in the memory store.
   */
  readonly nameProblem: (name: string) => string | undefined
  /**
   * `nameProblem` for a semaphore name, whose key takes one more byte than a lock's of the same name (at most
   * `SemaphoreStore.maxNameBytes`): every semaphore operation refuses such a name, and `Semaphore` asks first.
   */
  readonly semaphoreNameProblem: (name: string) => string | undefined
  /**
   * Why the store can not keep a semaphore holder's permits for `leaseMs` under `takeover`, or `undefined` if it can:
   * the DynamoDB store needs the lease, with the skew bound of absolute takeover, to be shorter than its
   * `ttlRetention`, or DynamoDB could delete the item while the lease lasts. `tryAcquirePermits` refuses such a
   * request; `Semaphore` asks first and fails with `LockConfigError`. Never a problem in the memory store.
   */
  readonly semaphoreLeaseProblem: (lease: {
    readonly leaseMs: number
    readonly takeover: SemaphoreProtocol.PermitTakeover
  }) => string | undefined
}

/**
 * The lock store service tag.
 *
 * @since 1.0.0
 * @category tags
 */
export const LockStore: Service<LockStore, LockStore> = EffectLine.Service<LockStore>(
  "@leasehold/lock/LockStore"
)

/**
 * The store's operations, by name.
 *
 * @since 1.0.0
 * @category models
 */
export type OperationName = Exclude<
  keyof LockStore,
  "maxNameBytes" | "nameProblem" | "semaphoreNameProblem" | "semaphoreLeaseProblem"
>

/**
 * Runs around one store call: may count, delay, hold or replace it.
 *
 * @since 1.0.0
 * @category models
 */
export type Interceptor = StoreViews.Interceptor

/**
 * Wraps every call of `backing` in `around`: the one way to build instrumented or fault-injecting stores. The result
 * is a store instance of its own, so a process that uses it apart from `backing` is another process.
 *
 * @since 1.0.0
 * @category combinators
 */
export const intercept: (backing: LockStore, around: Interceptor) => LockStore = StoreViews.intercept

/**
 * Another process's view of `shared`: the same records, but its own local queues and leases, as if it ran on another
 * host. Fibers that use different views compete through the store, as separate processes do; fibers that use one view
 * queue locally and re-enter, as the fibers of one process do.
 *
 * @example
 * ```ts
 * import { Lock, LockStore } from "@leasehold/lock"
 * import { Console, Effect } from "effect"
 *
 * // One storage, two processes: the second process sees the first one's lock through the store.
 * const shared = LockStore.makeMemory()
 * const first = LockStore.processView(shared)
 * const second = LockStore.processView(shared)
 *
 * const program = Effect.gen(function*() {
 *   const lease = yield* Lock.acquire("report").pipe(Effect.provideService(LockStore.LockStore, first))
 *   const refused = yield* Effect.flip(
 *     Effect.scoped(Lock.acquire("report")).pipe(Effect.provideService(LockStore.LockStore, second))
 *   )
 *   yield* Console.log(refused._tag, refused._tag === "LockNotAcquired" && refused.holder?.owner === lease.owner)
 *   // Output: LockNotAcquired true
 * }).pipe(Effect.scoped)
 *
 * Effect.runPromise(program)
 * ```
 *
 * @since 1.0.0
 * @category constructors
 */
export const processView: (shared: LockStore) => LockStore = StoreViews.processView

/**
 * A new process over `shared`, as a layer: each build of the layer is another process (see `processView`). Tests use
 * it to run several processes in one runtime over one memory store.
 *
 * @example
 * ```ts
 * import { Lock, LockStore } from "@leasehold/lock"
 * import { Console, Effect } from "effect"
 *
 * const shared = LockStore.makeMemory()
 * const tryReport = Effect.exit(Effect.scoped(Lock.acquire("report")))
 *
 * const program = Effect.gen(function*() {
 *   yield* Lock.acquire("report")
 *   // Another process over the same store finds the lock held.
 *   const other = yield* tryReport.pipe(Effect.provide(LockStore.layerProcess(shared)))
 *   yield* Console.log(other._tag)
 *   // Output: Failure
 * }).pipe(Effect.scoped, Effect.provide(LockStore.layerProcess(shared)))
 *
 * Effect.runPromise(program)
 * ```
 *
 * @since 1.0.0
 * @category layers
 */
export const layerProcess = (shared: LockStore): Layer.Layer<LockStore> =>
  Layer.sync(LockStore, () => processView(shared))

/**
 * The longest name the memory store accepts by default, in UTF-8 bytes: DynamoDB's sort key limit, the smaller of its
 * two key layouts, so that a name that works in tests works in production whichever layout the table has.
 *
 * @since 1.0.0
 * @category constants
 */
export const memoryMaxNameBytes = 1024

/**
 * Options of the memory store.
 *
 * @since 1.0.0
 * @category models
 */
export interface MemoryOptions {
  /**
   * The longest name to accept, in UTF-8 bytes. Default `memoryMaxNameBytes`; set it to the `maxNameBytes` of the
   * production store (its layout and prefix) to test against that budget. The memory store counts plain UTF-8 bytes:
   * a DynamoDB store without a prefix also counts each `#` and `\` in a name twice.
   */
  readonly maxNameBytes?: number | undefined
}

/**
 * A fresh in-memory store. It reads time only through `Clock`, so `TestClock.adjust` makes leases expire. It refuses
 * what DynamoDB refuses: names over the key budget, ill-formed names, data over `LockRecord.maxDataBytes`, list limits
 * that are not positive whole numbers.
 *
 * @since 1.0.0
 * @category constructors
 */
export const makeMemory = (options?: MemoryOptions): LockStore =>
  MemoryStore.make(options?.maxNameBytes ?? memoryMaxNameBytes)

/**
 * The in-memory store as a layer with no requirements. Each build of the layer is a fresh, empty store.
 *
 * It answers in the same tick, so the lock layer skips, for it alone, what guards against a slow store: the watchdog
 * on a renew in flight, the release's time limit per attempt, and the background give-back of an acquire abandoned
 * past its `wait`. Behind `intercept` it is treated as any other store and runs through every one of those paths.
 *
 * @example
 * ```ts
 * import { Lock, LockStore } from "@leasehold/lock"
 * import { Console, Effect, Option } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const first = yield* Effect.scoped(Lock.acquire("invoices"))
 *   const second = yield* Effect.scoped(Lock.acquire("invoices"))
 *   // A released lock keeps its record, so every acquisition gets a higher fence.
 *   const store = yield* LockStore.LockStore
 *   const record = Option.getOrThrow(yield* store.inspect("invoices"))
 *   yield* Console.log(second.fence > first.fence, record.fence === second.fence, record.owner)
 *   // Output: true true undefined
 * })
 *
 * // One process, or a test: each run gets its own empty store.
 * Effect.runPromise(program.pipe(Effect.provide(LockStore.layerMemory)))
 * ```
 *
 * @since 1.0.0
 * @category layers
 */
export const layerMemory: Layer.Layer<LockStore> = Layer.sync(LockStore, makeMemory)

/**
 * Whether `clock` is the one `Lock` runs background work with: the releases nobody waits for (the retries after a
 * release's first attempt, the release of a lease already lost, the give-back of a write that may have applied). Its
 * sleeps do not keep a Node process alive, so that a finished program's leftover tidying up never holds the process.
 * A store with timers of its own outside `Clock` (request timeouts and retry backoffs on the real clock while a test
 * drives a `TestClock`, say) should not let them keep the process alive either when the calling fiber's clock is this
 * one. Under a `TestClock` background work keeps the test's clock, and this is `false`.
 *
 * @since 1.0.0
 * @category background
 */
export const isBackgroundClock: (clock: Clock.Clock) => boolean = Background.isBackgroundClock
