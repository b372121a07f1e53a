/**
 * Read/write locks: many readers or one writer of a name at once, across all processes. Each holder has a lease as a
 * lock's: a heartbeat (or the fiber's lease session) keeps it, a loss interrupts the code that relies on it, a dead
 * holder's lease is taken over once it is over, and it is given back when its scope closes.
 *
 * A read/write lock is the semaphore of its name with `maxReaders` permits (`SemaphoreRecord.readWrite` marks its
 * record): a reader holds one, a writer all of them. So an acquisition is one conditional write when it gets in, one
 * write releases it, and the store's one rule for permits (never more held than the limit) is the lock's: never two
 * writers, never a writer beside a reader.
 *
 * Fences are the semaphore's: each acquisition, read or write, gets one above every earlier acquisition's of the name.
 * A writer's fence is above every fence any holder had before it; a reader's is above the fence of every writer before
 * it. A resource guarded by the lock keeps the highest fence it has seen from a writer, refuses a write with a lower
 * one, and may refuse a read with a lower one too: that read would have begun before the last write it knows of.
 *
 * Waiting is fair, by a lock's rule: a waiter that has waited a poll interval reserves the lock, the longest waiter
 * taking the reservation over; a writer's reservation keeps new readers out until the readers in it leave and it
 * gets in, and a reader's keeps a new writer out until it gets in. So a stream of readers does not starve a writer,
 * nor a stream of writers a reader: a waiter waits for the holders it found and the waiters that began before it.
 * Reservations are judged by wall clocks, as a lock's are: with `takeover: "observed"` nobody reserves, and waiters
 * are served in no particular order.
 *
 * Re-entry: a fiber inside a read lock of the name may read again, and one inside the write lock may read or write
 * again, each re-entering what it holds. A fiber inside a read lock that asks for the write lock fails with
 * `LockUpgradeRefused`: an upgrade is not waited for, since two readers upgrading at once would wait for each other.
 *
 * At most `maxReaders` readers hold a name at once; one more waits as it would for a writer.
 *
 * @example
 * ```ts
 * import { LockStore, ReadWriteLock } from "@leasehold/lock"
 * import { Effect } from "effect"
 *
 * const readPrices = Effect.log("reading the price list")
 * const updatePrices = Effect.log("rewriting the price list")
 *
 * const program = Effect.all([
 *   readPrices.pipe(ReadWriteLock.withReadLock("price-list", { wait: "10 seconds" })),
 *   readPrices.pipe(ReadWriteLock.withReadLock("price-list", { wait: "10 seconds" })),
 *   updatePrices.pipe(ReadWriteLock.withWriteLock("price-list", { wait: "10 seconds" }))
 * ], { concurrency: "unbounded" })
 *
 * Effect.runPromise(program.pipe(Effect.provide(LockStore.layerMemory)))
 * ```
 *
 * @since 1.0.0
 */
import * as ReadWriteMode from "@leasehold/core/record/ReadWriteMode"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as internal from "./internal/readWrite/readWriteLock.js"
import type { LockOptions } from "./Lock.js"
import type {
  LockConfigError,
  LockLost,
  LockNotAcquired,
  LockStoreError,
  LockUpgradeRefused,
  SemaphoreLimitMismatch
} from "./LockError.js"
import type { LockStore } from "./LockStore.js"
import type { Permits } from "./Permits.js"
import type { SemaphoreRecord } from "./SemaphoreRecord.js"

/**
 * The most readers that may hold one name at once: the permits of the lock's record, all of which a writer holds.
 *
 * @since 1.0.0
 * @category constants
 */
export const maxReaders: number = ReadWriteMode.limit

/**
 * How a read/write lock is held: `"read"`, shared by readers, or `"write"`, by one writer alone.
 *
 * @since 1.0.0
 * @category models
 */
export type Mode = ReadWriteMode.Mode

/**
 * The mode a held lease of a read/write lock is in: `"write"` when it holds all of the record's permits.
 *
 * @since 1.0.0
 * @category getters
 */
export const modeOf = (lease: Pick<Permits, "permits">): Mode => ReadWriteMode.modeOf(lease)

/**
 * What acquiring a read/write lock can fail with: as a lock's, and `LockUpgradeRefused` for a write asked for inside
 * a read of the name, and `SemaphoreLimitMismatch` when the name is a semaphore's with another limit.
 *
 * @since 1.0.0
 * @category models
 */
export type AcquireError =
  | LockNotAcquired
  | LockUpgradeRefused
  | SemaphoreLimitMismatch
  | LockStoreError
  | LockConfigError

/**
 * Acquires the read lock of `name` as a scoped resource, as `Lock.acquire` acquires a lock: held until the scope
 * closes, and its loss interrupts the fiber that acquired it. The handle's `fence` goes with what the reader does
 * downstream; its `permits` is 1. Data is at most `SemaphoreRecord.maxDataBytes`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const acquireRead: (
  name: string,
  options?: LockOptions
) => Effect.Effect<Permits, AcquireError, LockStore | Scope.Scope> = internal.acquireRead

/**
 * Acquires the write lock of `name` as a scoped resource: as `acquireRead`, alone. Its `permits` is `maxReaders`.
 *
 * @example
 * ```ts
 * import { LockStore, ReadWriteLock } from "@leasehold/lock"
 * import { Console, Effect } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const writer = yield* ReadWriteLock.acquireWrite("catalog")
 *   // Inside the write lock, a read re-enters it.
 *   const reader = yield* ReadWriteLock.acquireRead("catalog")
 *   yield* Console.log(ReadWriteLock.modeOf(reader), reader.fence === writer.fence)
 *   // Output: write true
 * }).pipe(Effect.scoped)
 *
 * Effect.runPromise(program.pipe(Effect.provide(LockStore.layerMemory)))
 * ```
 *
 * @since 1.0.0
 * @category constructors
 */
export const acquireWrite: (
  name: string,
  options?: LockOptions
) => Effect.Effect<Permits, AcquireError, LockStore | Scope.Scope> = internal.acquireWrite

/**
 * How `withReadLock` and `withWriteLock` are called: data-first with a program or a function of the held lease, or
 * pipeable with a program.
 *
 * @since 1.0.0
 * @category models
 */
export interface WithLock {
  (name: string, options?: LockOptions): <A, E, R>(
    self: Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | AcquireError | LockLost, R | LockStore>
  <A, E, R>(
    name: string,
    section: (lease: Permits) => Effect.Effect<A, E, R>,
    options?: LockOptions
  ): Effect.Effect<A, E | AcquireError | LockLost, R | LockStore>
  <A, E, R>(
    name: string,
    self: Effect.Effect<A, E, R>,
    options?: LockOptions
  ): Effect.Effect<A, E | AcquireError | LockLost, R | LockStore>
}

/**
 * Runs a section while holding the read lock of `name`, as `Lock.withLock` runs one under a lock: a loss interrupts
 * it with `LockLost`. The section is a program, or a function of the held lease; pipeable with a program.
 *
 * @since 1.0.0
 * @category combinators
 */
export const withReadLock: WithLock = internal.withReadLock

/**
 * Runs a section while holding the write lock of `name`: as `withReadLock`, alone.
 *
 * @example
 * ```ts
 * import { LockStore, ReadWriteLock } from "@leasehold/lock"
 * import { Effect } from "effect"
 *
 * // The writer's fence goes with its write, so that the store refuses an older writer's late one.
 * const publish = ReadWriteLock.withWriteLock(
 *   "catalog",
 *   (lease) => Effect.log(`publishing the catalog with fence ${lease.fence}`),
 *   { wait: "30 seconds" }
 * )
 *
 * Effect.runPromise(publish.pipe(Effect.provide(LockStore.layerMemory)))
 * ```
 *
 * @since 1.0.0
 * @category combinators
 */
export const withWriteLock: WithLock = internal.withWriteLock

/**
 * The lock's record, in one read: its holders (a writer holds all `maxReaders` permits), their fences and leases, and
 * any waiter's reservation. `None` if it was never acquired.
 *
 * @since 1.0.0
 * @category getters
 */
export const inspect: (
  name: string
) => Effect.Effect<Option.Option<SemaphoreRecord>, LockStoreError | LockConfigError, LockStore> = internal.inspect
