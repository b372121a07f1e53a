/**
 * The memory store's semaphores: the semaphore operations of the store contract in one process, with time read
 * through `Clock`. Semaphores live in a map of their own, so a lock and a semaphore of the same name never meet.
 *
 * As in `memoryStore.ts`, each operation is one `Effect.sync` after reading the clock, so it is atomic, as DynamoDB's
 * one conditional write per operation is.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { LockStoreError, type StoreOperation } from "../LockError.js"
import { isRenewSuperseded } from "../LockRecord.js"
import type * as LockStore from "../LockStore.js"
import { holderOf, type PermitHolder, permitRecord, type SemaphoreRecord } from "../SemaphoreRecord.js"
import type * as SemaphoreStore from "../SemaphoreStore.js"
import * as LockName from "./lockName.js"

import * as Checks from "./semaphoreChecks.js"

type Result = SemaphoreStore.AcquirePermitsResult

const lost: LockStore.RenewResult = { _tag: "Lost", current: undefined }
const notHeld: LockStore.ReleaseResult = { _tag: "NotHeld", current: undefined }
const released: LockStore.ReleaseResult = { _tag: "Released" }

/** The name's problem as a lock's (`LockName`), against the budget of a semaphore name: a byte under a lock's. */
const nameProblem = (name: string, maxNameBytes: number): string | undefined => {
  const problem = LockName.problem(name, maxNameBytes)
  if (problem === undefined) return undefined
  if (problem._tag === "NotWellFormed") {
    return "semaphore name is not well-formed Unicode (a lone surrogate has no UTF-8 form)"
  }
  const bytes = problem._tag === "TooLong" ? problem.bytes : 0
  return `semaphore name is ${bytes} UTF-8 bytes; this store takes semaphore names of 1 to ${maxNameBytes} bytes ` +
    `(one less than lock names)`
}

/** Runs `run` at the clock's time, or refuses the request, unsent, with what is wrong with it. */
const checked = <A>(
  operation: StoreOperation,
  problem: () => string | undefined,
  run: (now: number) => A
): Effect.Effect<A, LockStoreError> =>
  Effect.suspend(() => {
    const message = problem()
    return message === undefined
      ? Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => run(now)))
      : Effect.fail(new LockStoreError({ operation, retryable: false, mayHaveApplied: false, message }))
  })

const newHolder = (request: SemaphoreStore.AcquirePermitsRequest, fence: number, now: number): PermitHolder => ({
  owner: request.owner,
  holder: request.holder,
  permits: request.permits,
  fence,
  leaseUntil: now + request.leaseMs,
  leaseMs: request.leaseMs,
  version: 1,
  sequence: 0,
  acquiredAt: now,
  data: request.data
})

/** Whether an expired entry names a holder that is there with those permits and over under `takeover`. */
const isRemovable = (
  current: SemaphoreRecord,
  entry: SemaphoreStore.ExpiredPermit,
  takeover: SemaphoreStore.PermitTakeover,
  now: number
): boolean => {
  const holder = holderOf(current, entry.owner)
  if (holder === undefined || holder.permits !== entry.permits) return false
  return takeover._tag === "Absolute"
    ? holder.leaseUntil < now - takeover.maxClockSkewMs
    : holder.version === entry.version
}

const permitsOf = (entries: ReadonlyArray<SemaphoreStore.ExpiredPermit>): number =>
  entries.reduce((sum, entry) => sum + entry.permits, 0)

/** What a failed condition answers: the limit first, as DynamoDB's store decides from the record it reads back. */
const refused = (current: SemaphoreRecord, request: SemaphoreStore.AcquirePermitsRequest): Result =>
  current.limit === request.limit
    ? { _tag: "Conflict", current }
    : { _tag: "LimitMismatch", limit: current.limit }

const acquired = (semaphore: SemaphoreRecord, holder: PermitHolder): Result => ({
  _tag: "Acquired",
  record: permitRecord(semaphore.name, holder),
  semaphore
})

/**
 * The record after an acquire at `now`, or the answer when the acquire's conditions fail.
 *
 * @internal
 */
export const acquireOver = (
  current: SemaphoreRecord | undefined,
  request: SemaphoreStore.AcquirePermitsRequest,
  now: number
): Result => {
  if (request.create) {
    if (current !== undefined) return refused(current, request)
    // A new name starts its fence from the clock, as a lock's does.
    const holder = newHolder(request, now + 1, now)
    const { limit, name, permits } = request
    return acquired({ name, limit, fence: holder.fence, used: permits, holders: [holder] }, holder)
  }
  if (current === undefined) return { _tag: "Conflict", current: undefined }
  const removedPermits = permitsOf(request.expired)
  if (
    current.limit !== request.limit ||
    holderOf(current, request.owner) !== undefined ||
    !request.expired.every((entry) => isRemovable(current, entry, request.takeover, now)) ||
    current.used - removedPermits + request.permits > current.limit
  ) {
    return refused(current, request)
  }
  const removed = new Set(request.expired.map((entry) => entry.owner))
  const holder = newHolder(request, current.fence + 1, now)
  return acquired({
    ...current,
    fence: holder.fence,
    used: current.used - removedPermits + request.permits,
    // Fences only grow, so appending keeps the holders in the order of their fences.
    holders: [...current.holders.filter((other) => !removed.has(other.owner)), holder]
  }, holder)
}

/** @internal */
export const make = (maxLockNameBytes: number): SemaphoreStore.SemaphoreOperations => {
  const records = new Map<string, SemaphoreRecord>()
  const maxNameBytes = maxLockNameBytes - 1
  const named = (name: string, problem: () => string | undefined) => () => nameProblem(name, maxNameBytes) ?? problem()

  const tryAcquirePermits = (request: SemaphoreStore.AcquirePermitsRequest) =>
    checked("tryAcquirePermits", named(request.name, () => Checks.acquireProblem(request)), (now) => {
      const result = acquireOver(records.get(request.name), request, now)
      if (result._tag === "Acquired") records.set(request.name, result.semaphore)
      return result
    })

  const renewPermits = (request: SemaphoreStore.RenewPermitsRequest) =>
    checked("renewPermits", named(request.name, () => Checks.renewProblem(request)), (now) => {
      const current = records.get(request.name)
      const holder = current === undefined ? undefined : holderOf(current, request.owner)
      if (current === undefined || holder === undefined || holder.fence !== request.fence) return lost
      // This renew, or a newer one of the same holder, applied already: a renew delivered late changes nothing.
      if (isRenewSuperseded(holder.sequence, request)) {
        return { _tag: "Renewed", record: permitRecord(current.name, holder) } satisfies LockStore.RenewResult
      }
      const renewed: PermitHolder = {
        ...holder,
        leaseUntil: now + request.leaseMs,
        leaseMs: request.leaseMs,
        version: holder.version + 1,
        sequence: request.sequence ?? holder.sequence
      }
      const holders = current.holders.map((other) => other.owner === request.owner ? renewed : other)
      records.set(request.name, { ...current, holders })
      return { _tag: "Renewed", record: permitRecord(current.name, renewed) } satisfies LockStore.RenewResult
    })

  const releasePermits = (request: SemaphoreStore.ReleasePermitsRequest) =>
    checked("releasePermits", named(request.name, () => Checks.releaseProblem(request)), () => {
      const current = records.get(request.name)
      const holder = current === undefined ? undefined : holderOf(current, request.owner)
      if (
        current === undefined || holder === undefined || holder.permits !== request.permits ||
        (request.fence !== undefined && holder.fence !== request.fence)
      ) {
        return notHeld
      }
      // The record stays, with its fence: the next acquisition's fence must be higher.
      const holders = current.holders.filter((other) => other.owner !== request.owner)
      records.set(request.name, { ...current, used: current.used - holder.permits, holders })
      return released
    })

  const inspectSemaphore = (name: string) =>
    checked("inspectSemaphore", named(name, () => undefined), () => Option.fromNullable(records.get(name)))

  return { tryAcquirePermits, renewPermits, releasePermits, inspectSemaphore }
}
