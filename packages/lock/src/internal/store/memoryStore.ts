/**
 * The in-memory store: the store contract in one process, with time read through `Clock`. Its rules are the core's
 * (`LockTransitions`, `LockListing`, `LockChecks`); this module keeps the records and reads the clock. Its semaphores
 * are in `memorySemaphores.ts`.
 *
 * JavaScript runs one fiber step at a time, so each operation below (a single `Effect.sync` after reading the clock)
 * is atomic, as a conditional write is in DynamoDB.
 *
 * @internal
 */
import * as LockName from "@leasehold/core/record/LockName"
import type { LockRecord } from "@leasehold/core/record/LockRecord"
import * as LockChecks from "@leasehold/core/store/LockChecks"
import * as LockListing from "@leasehold/core/store/LockListing"
import * as LockTransitions from "@leasehold/core/store/LockTransitions"
import * as NameRefusal from "@leasehold/core/store/NameRefusal"
import * as SemaphoreChecks from "@leasehold/core/store/SemaphoreChecks"
import * as Transition from "@leasehold/core/store/Transition"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import { LockStoreError, type StoreOperation } from "../../LockError.js"
import type * as LockStore from "../../LockStore.js"
import * as MemorySemaphores from "./memorySemaphores.js"

const refuse = (operation: StoreOperation, message: string) =>
  Effect.fail(new LockStoreError({ operation, retryable: false, mayHaveApplied: false, message }))

/**
 * The same key limits as DynamoDB, so that a name that works in tests works in production. `Lock` checks names
 * first; this is for direct users of the store.
 */
const checkName = <A>(operation: StoreOperation, name: string, maxNameBytes: number, run: Effect.Effect<A>) =>
  Effect.suspend((): Effect.Effect<A, LockStoreError> => {
    const problem = nameRefusal(name, maxNameBytes)
    return problem === undefined ? run : refuse(operation, problem)
  })

/** What the store says of a name it can not key, or `undefined`. */
const nameRefusal = (name: string, maxNameBytes: number): string | undefined => {
  const problem = LockName.problem(name, maxNameBytes)
  return problem === undefined ? undefined : NameRefusal.lock(problem, maxNameBytes)
}

/** What DynamoDB refuses in an item: see `LockChecks.acquireProblem`. */
const checkAcquire = (
  request: LockStore.AcquireRequest,
  maxNameBytes: number,
  run: Effect.Effect<LockStore.AcquireResult>
) =>
  Effect.suspend((): Effect.Effect<LockStore.AcquireResult, LockStoreError> => {
    const problem = LockChecks.acquireProblem(request)
    return problem === undefined
      ? checkName("tryAcquire", request.name, maxNameBytes, run)
      : refuse("tryAcquire", problem)
  })

/** What DynamoDB refuses in a renew: see `LockChecks.renewProblem`. */
const checkRenew = (
  request: LockStore.RenewRequest,
  maxNameBytes: number,
  run: Effect.Effect<LockStore.RenewResult>
) =>
  Effect.suspend((): Effect.Effect<LockStore.RenewResult, LockStoreError> => {
    const problem = LockChecks.renewProblem(request)
    return problem === undefined ? checkName("renew", request.name, maxNameBytes, run) : refuse("renew", problem)
  })

/**
 * Stores whose every operation completes without waiting on I/O or timers. Such a store can not hang, so `Lock` sets
 * no timers around its calls and cleans up before it answers. Only this module's stores are in it: a wrapper may wait.
 */
const immediate = new WeakSet<LockStore.LockStore>()

/**
 * Whether `store` answers every call at once (a memory store, or a process's view of one).
 *
 * @internal
 */
export const answersAtOnce = (store: LockStore.LockStore): boolean => immediate.has(store)

/** @internal */
export const make = (maxNameBytes: number): LockStore.LockStore => {
  const records = new Map<string, LockRecord>()

  const withNow = <A>(f: (now: number) => A): Effect.Effect<A> =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => f(now)))

  const tryAcquire = (request: LockStore.AcquireRequest) =>
    withNow((now) =>
      Transition.apply(records, request.name, (current) => LockTransitions.tryAcquire(current, request, now))
    )

  const tryAcquireAll = (
    request: LockStore.AcquireAllRequest
  ): Effect.Effect<LockStore.AcquireAllResult, LockStoreError> =>
    Effect.suspend(() => {
      const problem = LockChecks.acquireAllProblem(request) ??
        request.requests.map((one) => nameRefusal(one.name, maxNameBytes)).find((found) => found !== undefined)
      if (problem !== undefined) return refuse("tryAcquireAll", problem)
      return withNow((now): LockStore.AcquireAllResult => {
        const written = LockTransitions.tryAcquireAll(records, request, now)
        if (written === undefined) return { _tag: "Refused" }
        for (const record of written) records.set(record.name, record)
        return { _tag: "Acquired", records: written }
      })
    })

  const renew = (request: LockStore.RenewRequest) =>
    withNow((now) => Transition.apply(records, request.name, (current) => LockTransitions.renew(current, request, now)))

  const release = (request: LockStore.ReleaseRequest) =>
    Effect.sync(() => Transition.apply(records, request.name, (current) => LockTransitions.release(current, request)))

  const reserve = (request: LockStore.ReserveRequest) =>
    withNow((now) =>
      Transition.apply(records, request.name, (current) => LockTransitions.reserve(current, request, now))
    )

  const inspect = (name: string) => Effect.sync(() => Option.liftPredicate(records.get(name), Predicate.isNotUndefined))

  const list = (request: LockStore.ListRequest): Effect.Effect<LockStore.ListPage, LockStoreError> => {
    const limit = LockListing.pageSize(request)
    if (limit._tag === "Invalid") return refuse("list", limit.message)
    return Effect.sync(() => LockListing.page(records, request, limit.value))
  }

  const forceRelease = (name: string, holder: LockStore.ForceReleaseHolder | undefined) =>
    Effect.sync(() =>
      Option.liftPredicate(
        Transition.apply(records, name, (current) => LockTransitions.forceRelease(current, holder)),
        Predicate.isNotUndefined
      )
    )

  const store: LockStore.LockStore = {
    tryAcquire: (request) => checkAcquire(request, maxNameBytes, tryAcquire(request)),
    tryAcquireAll,
    renew: (request) => checkRenew(request, maxNameBytes, renew(request)),
    release: (request) => checkName("release", request.name, maxNameBytes, release(request)),
    inspect: (name) => checkName("inspect", name, maxNameBytes, inspect(name)),
    list,
    reserve: (request) => checkName("reserve", request.name, maxNameBytes, reserve(request)),
    forceRelease: (name, holder) => checkName("forceRelease", name, maxNameBytes, forceRelease(name, holder)),
    ...MemorySemaphores.make(maxNameBytes),
    maxNameBytes,
    nameProblem: (name) => LockName.describe(name, maxNameBytes, "lock"),
    semaphoreNameProblem: (name) => LockName.describe(name, SemaphoreChecks.maxNameBytes(maxNameBytes), "semaphore"),
    semaphoreLeaseProblem: () => undefined
  }
  immediate.add(store)
  return store
}

/**
 * Makes `view` answer at once when `backing` does: for views that add nothing that could wait.
 *
 * @internal
 */
export const sameTiming = (view: LockStore.LockStore, backing: LockStore.LockStore): LockStore.LockStore => {
  if (immediate.has(backing)) immediate.add(view)
  return view
}
