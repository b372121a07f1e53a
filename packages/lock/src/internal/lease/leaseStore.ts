/**
 * What keeping a held lease needs of its store: the renew and the release of that one lease, and whether the store
 * answers at once. A lock's lease is the lock's record; a semaphore holder's is its entry in the semaphore's record.
 * The heartbeat, the release and the give-back of an unusable write go through this view, so that both kinds of
 * lease are kept by the same code.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type { LockStoreError } from "../../LockError.js"
import type * as LockStore from "../../LockStore.js"
import * as LastRelease from "../process/lastRelease.js"
import * as MemoryStore from "../store/memoryStore.js"

/** @internal */
export interface RenewRequest {
  readonly name: string
  readonly owner: string
  readonly fence: number
  readonly leaseMs: number
  /** The lease's write sequence (see `leaseWrites.ts`). */
  readonly sequence: number
}

/** @internal */
export interface LeaseStore {
  /** The names of the renews' and releases' spans. */
  readonly spans: { readonly renew: string; readonly release: string }
  /** A store that answers at once can not hang: its calls need no bound, whose fibers would cost more than the call. */
  readonly answersAtOnce: boolean
  readonly renew: (request: RenewRequest) => Effect.Effect<LockStore.RenewResult, LockStoreError>
  /** `fence` is unknown only when giving back a write whose answer never arrived: the owner alone identifies it. */
  readonly release: (request: LockStore.ReleaseRequest) => Effect.Effect<LockStore.ReleaseResult, LockStoreError>
}

const lockSpans = { renew: "Lock.renew", release: "Lock.release" }
const semaphoreSpans = { renew: "Semaphore.renew", release: "Semaphore.release" }

/** One view per store: a lock's lease is kept for nothing more than the store it is in. */
const lockViews = new WeakMap<LockStore.LockStore, LeaseStore>()

/**
 * The leases of locks in `store`.
 *
 * @internal
 */
export const ofLock = (store: LockStore.LockStore): LeaseStore => {
  let view = lockViews.get(store)
  if (view === undefined) {
    view = {
      spans: lockSpans,
      answersAtOnce: MemoryStore.answersAtOnce(store),
      renew: (request) => store.renew(request),
      release: (request) =>
        Effect.tap(
          store.release(request),
          (result) =>
            Effect.sync(() =>
              LastRelease.note(store, request.name, result._tag === "Released" ? result.record : undefined)
            )
        )
    }
    lockViews.set(store, view)
  }
  return view
}

/**
 * The lease of one holder of `permits` of a semaphore in `store`: a release frees exactly these.
 *
 * @internal
 */
export const ofPermits = (store: LockStore.LockStore, permits: number): LeaseStore => ({
  spans: semaphoreSpans,
  answersAtOnce: MemoryStore.answersAtOnce(store),
  renew: (request) => store.renewPermits(request),
  release: (request) => store.releasePermits({ ...request, permits })
})
