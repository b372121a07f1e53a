/**
 * Leasehold: scoped distributed locks for Effect.
 *
 * @since 1.0.0
 */

/**
 * Acquire, hold and release locks: `withLock`, `acquire`, options and the lease handle.
 *
 * @since 1.0.0
 */
export * as Lock from "./Lock.js"

/**
 * The handle of a held lock and its status.
 *
 * @since 1.0.0
 */
export * as Lease from "./Lease.js"

/**
 * A held lease as a plain value, for handing it over to another process: the type and its Schema.
 *
 * @since 1.0.0
 */
export * as LeaseHandoff from "./LeaseHandoff.js"

/**
 * Lease sessions: one heartbeat for every lock a process holds under one.
 *
 * @since 1.0.0
 */
export * as LeaseSession from "./LeaseSession.js"

/**
 * The typed errors.
 *
 * @since 1.0.0
 */
export * as LockError from "./LockError.js"

/**
 * The record a store keeps per lock.
 *
 * @since 1.0.0
 */
export * as LockRecord from "./LockRecord.js"

/**
 * The storage service, its contract, and the in-memory store.
 *
 * @since 1.0.0
 */
export * as LockStore from "./LockStore.js"

/**
 * Read/write locks: many readers or one writer of a name at once.
 *
 * @since 1.0.0
 */
export * as ReadWriteLock from "./ReadWriteLock.js"

/**
 * The record a store keeps per semaphore.
 *
 * @since 1.0.0
 */
export * as SemaphoreRecord from "./SemaphoreRecord.js"

/**
 * Distributed semaphores: at most `limit` permits of a name held at once, leased as locks are.
 *
 * @since 1.0.0
 */
export * as Semaphore from "./Semaphore.js"

/**
 * The handle of held permits of a semaphore.
 *
 * @since 1.0.0
 */
export * as Permits from "./Permits.js"

/**
 * The semaphore operations of the store contract: requests, results and checks.
 *
 * @since 1.0.0
 */
export * as SemaphoreStore from "./SemaphoreStore.js"

/**
 * Measures of strings in UTF-8, as stores limit them.
 *
 * @since 1.0.0
 */
export * as Utf8 from "./Utf8.js"

/**
 * Durations as every option takes them, checked on the raw value.
 *
 * @since 1.0.0
 */
export * as LockDuration from "./LockDuration.js"

/**
 * Leader election on the lock: `run` campaigns and leads, `leader` watches who leads.
 *
 * @since 1.0.0
 */
export * as LeaderElection from "./LeaderElection.js"
/**
 * Locks whose data is a typed value, with an Effect Schema.
 *
 * @since 1.0.0
 */
export * as TypedLock from "./TypedLock.js"
