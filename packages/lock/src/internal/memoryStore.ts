/**
 * The in-memory store: the store contract in one process, with time read through `Clock`. Its semaphores are in
 * `memorySemaphores.ts`.
 *
 * JavaScript runs one fiber step at a time, so each operation below (a single `Effect.sync` after reading the clock)
 * is atomic, as a conditional write is in DynamoDB.
 *
 * @internal
 */
import * as LockProtocol from "@leasehold/core/store/LockProtocol"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { LockStoreError, type StoreOperation } from "../LockError.js"
import {
  dataProblem,
  isRenewSuperseded,
  isReservableAt,
  isReservedForOtherAt,
  type LockRecord,
  payloadProblem,
  sequenceProblem
} from "../LockRecord.js"
import type * as LockStore from "../LockStore.js"
import * as LockName from "./lockName.js"
import * as MemorySemaphores from "./memorySemaphores.js"

const isTakeoverAllowed = (record: LockRecord, takeover: LockStore.Takeover, now: number): boolean => {
  if (record.owner === undefined) return true
  switch (takeover._tag) {
    case "Absolute":
      return record.leaseUntil + takeover.maxClockSkewMs < now
    case "Observed":
      return takeover.stale !== undefined &&
        takeover.stale.owner === record.owner &&
        takeover.stale.fence === record.fence &&
        takeover.stale.version === record.version
  }
}

const released = (record: LockRecord): LockRecord => ({
  ...record,
  owner: undefined,
  holder: undefined,
  leaseUntil: 0,
  version: record.version + 1,
  sequence: 0,
  acquiredAt: undefined,
  data: undefined
})

/** What `forceRelease` leaves: nobody holds the lock, and nobody waits to be next. */
const forceReleased = (record: LockRecord): LockRecord => ({
  ...released(record),
  reservedBy: undefined,
  reservedUntil: 0,
  reservedSince: 0
})

const refuse = (operation: StoreOperation, message: string) =>
  Effect.fail(new LockStoreError({ operation, retryable: false, mayHaveApplied: false, message }))

/**
 * The same key limits as DynamoDB, so that a name that works in tests works in production. `Lock` checks names
 * first; this is for direct users of the store.
 */
const checkName = <A>(operation: StoreOperation, name: string, maxNameBytes: number, run: Effect.Effect<A>) =>
  Effect.suspend((): Effect.Effect<A, LockStoreError> => {
    const problem = LockName.problem(name, maxNameBytes)
    if (problem === undefined) return run
    if (problem._tag === "NotWellFormed") {
      return refuse(operation, "lock name is not well-formed Unicode (a lone surrogate has no UTF-8 form)")
    }
    const bytes = problem._tag === "TooLong" ? problem.bytes : 0
    return refuse(operation, `lock name is ${bytes} UTF-8 bytes; this store takes names of 1 to ${maxNameBytes} bytes`)
  })

/** What DynamoDB refuses in an item: see `payloadProblem`. */
const checkAcquire = (
  request: LockStore.AcquireRequest,
  maxNameBytes: number,
  run: Effect.Effect<LockStore.AcquireResult>
) =>
  Effect.suspend((): Effect.Effect<LockStore.AcquireResult, LockStoreError> => {
    const problem = payloadProblem(request)
    return problem === undefined
      ? checkName("tryAcquire", request.name, maxNameBytes, run)
      : refuse("tryAcquire", problem.message)
  })

/** What DynamoDB refuses in a renew that sets data: see `dataProblem`. */
const checkRenew = (
  request: LockStore.RenewRequest,
  maxNameBytes: number,
  run: Effect.Effect<LockStore.RenewResult>
) =>
  Effect.suspend((): Effect.Effect<LockStore.RenewResult, LockStoreError> => {
    const problem = sequenceProblem(request.sequence) ??
      (request.setData === undefined ? undefined : dataProblem(request.setData.data))
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

/**
 * The record an acquire at `now` writes over `current`. A name never seen starts its fence from the clock, as a
 * DynamoDB row deleted by TTL does.
 */
const acquired = (request: LockStore.AcquireRequest, current: LockRecord | undefined, now: number): LockRecord => ({
  name: request.name,
  owner: request.owner,
  holder: request.holder,
  leaseUntil: now + request.leaseMs,
  leaseMs: request.leaseMs,
  fence: (current?.fence ?? now) + 1,
  version: (current?.version ?? 0) + 1,
  sequence: 0,
  acquiredAt: now,
  data: request.data,
  reservedBy: undefined,
  reservedUntil: 0,
  reservedSince: 0
})

/** @internal */
export const make = (maxNameBytes: number): LockStore.LockStore => {
  const records = new Map<string, LockRecord>()

  const withNow = <A>(f: (now: number) => A): Effect.Effect<A> =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => f(now)))

  const tryAcquire = (request: LockStore.AcquireRequest) =>
    withNow((now): LockStore.AcquireResult => {
      const current = records.get(request.name)
      if (
        current !== undefined &&
        (!isTakeoverAllowed(current, request.takeover, now) || isReservedForOtherAt(current, request.owner, now))
      ) {
        return { _tag: "Conflict", current }
      }
      const record = acquired(request, current, now)
      records.set(request.name, record)
      return { _tag: "Acquired", record }
    })

  const renew = (request: LockStore.RenewRequest) =>
    withNow((now): LockStore.RenewResult => {
      const current = records.get(request.name)
      if (current === undefined || current.owner !== request.owner || current.fence !== request.fence) {
        return { _tag: "Lost", current: current?.owner === undefined ? undefined : current }
      }
      // This renew, or a newer one of the same lease, applied already: a renew delivered late changes nothing.
      if (isRenewSuperseded(current.sequence, request)) return { _tag: "Renewed", record: current }
      const record: LockRecord = {
        ...current,
        leaseUntil: now + request.leaseMs,
        leaseMs: request.leaseMs,
        version: current.version + 1,
        // A new owner's count starts at this write's.
        sequence: request.newOwner !== undefined ? request.sequence ?? 0 : request.sequence ?? current.sequence,
        data: request.setData === undefined ? current.data : request.setData.data,
        owner: request.newOwner ?? current.owner
      }
      records.set(request.name, record)
      return { _tag: "Renewed", record }
    })

  const release = (request: LockStore.ReleaseRequest) =>
    Effect.sync((): LockStore.ReleaseResult => {
      const current = records.get(request.name)
      if (
        current === undefined || current.owner !== request.owner ||
        (request.fence !== undefined && current.fence !== request.fence)
      ) {
        return { _tag: "NotHeld", current: current?.owner === undefined ? undefined : current }
      }
      records.set(request.name, released(current))
      return { _tag: "Released" }
    })

  const reserve = (request: LockStore.ReserveRequest) =>
    withNow((now): LockStore.ReserveResult => {
      const current = records.get(request.name)
      if (current === undefined || !isReservableAt(current, request.owner, request.waitingSince, now)) {
        return { _tag: "NotReserved", current }
      }
      // Neither the version nor the holder fields change: observed takeover watches them.
      const record: LockRecord = {
        ...current,
        reservedBy: request.owner,
        reservedUntil: now + request.reserveMs,
        reservedSince: request.waitingSince
      }
      records.set(request.name, record)
      return { _tag: "Reserved", record }
    })

  const inspect = (name: string) => Effect.sync(() => Option.fromNullable(records.get(name)))

  const list = (request: LockStore.ListRequest): Effect.Effect<LockStore.ListPage, LockStoreError> => {
    const limit = request.limit ?? LockProtocol.defaultListLimit
    const problem = LockProtocol.listLimitProblem(limit)
    if (problem !== undefined) return refuse("list", problem)
    return Effect.sync((): LockStore.ListPage => {
      const prefix = request.prefix ?? ""
      const names = Array.from(records.keys())
        .filter((name) => name.startsWith(prefix) && (request.cursor === undefined || name > request.cursor))
        .sort()
      const page = names.slice(0, limit)
      return {
        records: page.map((name) => records.get(name)!),
        cursor: names.length > limit ? page[page.length - 1] : undefined
      }
    })
  }

  const forceRelease = (name: string, holder: LockStore.ForceReleaseHolder | undefined) =>
    Effect.sync(() => {
      const current = records.get(name)
      if (
        current === undefined || current.owner === undefined ||
        (holder !== undefined && (current.owner !== holder.owner || current.fence !== holder.fence))
      ) {
        return Option.none<LockRecord>()
      }
      records.set(name, forceReleased(current))
      return Option.some(current)
    })

  const store: LockStore.LockStore = {
    tryAcquire: (request) => checkAcquire(request, maxNameBytes, tryAcquire(request)),
    renew: (request) => checkRenew(request, maxNameBytes, renew(request)),
    release: (request) => checkName("release", request.name, maxNameBytes, release(request)),
    inspect: (name) => checkName("inspect", name, maxNameBytes, inspect(name)),
    list,
    reserve: (request) => checkName("reserve", request.name, maxNameBytes, reserve(request)),
    forceRelease: (name, holder) => checkName("forceRelease", name, maxNameBytes, forceRelease(name, holder)),
    ...MemorySemaphores.make(maxNameBytes),
    maxNameBytes,
    nameProblem: (name) => LockName.describe(name, maxNameBytes, "lock"),
    semaphoreNameProblem: (name) => LockName.describe(name, maxNameBytes - 1, "semaphore"),
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
