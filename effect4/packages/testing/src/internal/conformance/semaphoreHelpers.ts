/**
 * Store calls and assertions the semaphore conformance tests share.
 *
 * @internal
 */
import { expect } from "@effect/vitest"
import type * as LockError from "@leasehold/lock/LockError"
import type * as LockRecord from "@leasehold/lock/LockRecord"
import type * as LockStore from "@leasehold/lock/LockStore"
import type * as SemaphoreRecord from "@leasehold/lock/SemaphoreRecord"
import type * as SemaphoreStore from "@leasehold/lock/SemaphoreStore"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { leaseMs, makeOwner, maxClockSkewMs } from "./fixture.js"
import { expectSome, expectTag } from "./helpers.js"

/**
 * The limit most tests use.
 *
 * @internal
 */
export const limit = 3

/** @internal */
export const absoluteRemoval = (skew: number = maxClockSkewMs): SemaphoreStore.PermitTakeover => ({
  _tag: "Absolute",
  maxClockSkewMs: skew
})

/** @internal */
export const observedRemoval: SemaphoreStore.PermitTakeover = { _tag: "Observed" }

/**
 * One acquire attempt on `name` for a fresh owner, whatever the store answers.
 *
 * @internal
 */
export const attemptPermits = (
  store: LockStore.LockStore,
  name: string,
  overrides: Partial<Omit<SemaphoreStore.AcquirePermitsRequest, "name">> = {}
) =>
  store.tryAcquirePermits({
    name,
    owner: makeOwner(),
    holder: "holder-a",
    limit,
    permits: 1,
    leaseMs,
    data: undefined,
    takeover: absoluteRemoval(),
    expired: [],
    create: false,
    ...overrides
  })

/**
 * Takes permits as a caller that knows nothing of the semaphore would: an acquire, and a create when there is no
 * record. Fails the test unless one of them acquires.
 *
 * @internal
 */
export const takePermits = (
  store: LockStore.LockStore,
  name: string,
  overrides: Partial<Omit<SemaphoreStore.AcquirePermitsRequest, "name" | "create">> = {}
) =>
  Effect.gen(function*() {
    const request = { owner: makeOwner(), ...overrides }
    const first = yield* attemptPermits(store, name, request)
    const result = first._tag === "Conflict" && first.current === undefined
      ? yield* attemptPermits(store, name, { ...request, create: true })
      : first
    return expectTag(result, "Acquired")
  })

/** @internal */
export const inspectSemaphoreSome = (store: LockStore.LockStore, name: string) =>
  Effect.map(store.inspectSemaphore(name), (option) => expectSome(option, `a semaphore record for ${name}`))

/**
 * The holder of an acquired record, as the removal of an expired one names it.
 *
 * @internal
 */
export const expiredOf = (record: LockRecord.LockRecord, permits: number = 1): SemaphoreStore.ExpiredPermit => ({
  owner: record.owner!,
  permits,
  version: record.version
})

/** @internal */
export const renewPermitsOf = (store: LockStore.LockStore, record: LockRecord.LockRecord, lease: number = leaseMs) =>
  store.renewPermits({ name: record.name, owner: record.owner!, fence: record.fence, leaseMs: lease })

/** @internal */
export const releasePermitsOf = (store: LockStore.LockStore, record: LockRecord.LockRecord, permits: number = 1) =>
  store.releasePermits({ name: record.name, owner: record.owner!, fence: record.fence, permits })

/**
 * The owners of a record's holders, in the record's order (that of their fences).
 *
 * @internal
 */
export const ownersOf = (record: SemaphoreRecord.SemaphoreRecord): ReadonlyArray<string> =>
  record.holders.map((holder) => holder.owner)

/**
 * Asserts a non-retryable `LockStoreError` of `operation`.
 *
 * @internal
 */
export const expectRefusal = <A>(
  effect: Effect.Effect<A, LockError.LockStoreError>,
  operation: LockError.StoreOperation,
  what: string
) =>
  Effect.gen(function*() {
    const error = yield* Effect.flip(effect)
    expect(error._tag, what).toBe("LockStoreError")
    expect(error.operation, what).toBe(operation)
    expect(error.retryable, what).toBe(false)
    return error
  })

/**
 * Asserts that `name` has no semaphore record.
 *
 * @internal
 */
export const expectNoSemaphore = (store: LockStore.LockStore, name: string) =>
  Effect.map(store.inspectSemaphore(name), (option) => expect(Option.isNone(option), name).toBe(true))
