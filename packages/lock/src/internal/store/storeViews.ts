/**
 * Stores made from other stores: wrappers around every call, and another process's view of a shared store.
 *
 * @internal
 */
import type * as Effect from "effect/Effect"
import type { LockStoreError } from "../../LockError.js"
import type * as LockStore from "../../LockStore.js"
import * as MemoryStore from "./memoryStore.js"

/** @internal */
export type Interceptor = <A>(
  operation: LockStore.OperationName,
  call: Effect.Effect<A, LockStoreError>
) => Effect.Effect<A, LockStoreError>

/** @internal */
export const intercept = (backing: LockStore.LockStore, around: Interceptor): LockStore.LockStore => ({
  tryAcquire: (request) => around("tryAcquire", backing.tryAcquire(request)),
  ...(backing.tryAcquireAll === undefined ? {} : {
    tryAcquireAll: (request: LockStore.AcquireAllRequest) => around("tryAcquireAll", backing.tryAcquireAll!(request))
  }),
  renew: (request) => around("renew", backing.renew(request)),
  release: (request) => around("release", backing.release(request)),
  inspect: (name) => around("inspect", backing.inspect(name)),
  list: (request) => around("list", backing.list(request)),
  reserve: (request) => around("reserve", backing.reserve(request)),
  forceRelease: (name, holder) => around("forceRelease", backing.forceRelease(name, holder)),
  tryAcquirePermits: (request) => around("tryAcquirePermits", backing.tryAcquirePermits(request)),
  renewPermits: (request) => around("renewPermits", backing.renewPermits(request)),
  releasePermits: (request) => around("releasePermits", backing.releasePermits(request)),
  reservePermits: (request) => around("reservePermits", backing.reservePermits(request)),
  inspectSemaphore: (name) => around("inspectSemaphore", backing.inspectSemaphore(name)),
  maxNameBytes: backing.maxNameBytes,
  nameProblem: backing.nameProblem,
  semaphoreNameProblem: backing.semaphoreNameProblem,
  semaphoreLeaseProblem: backing.semaphoreLeaseProblem
})

const passThrough: Interceptor = (_operation, call) => call

/**
 * A new store instance with `shared`'s operations: `Lock` keeps what is local to a process per store instance, so
 * this is another process. It adds nothing that could wait, so it answers at once when `shared` does.
 *
 * @internal
 */
export const processView = (shared: LockStore.LockStore): LockStore.LockStore =>
  MemoryStore.sameTiming(intercept(shared, passThrough), shared)
