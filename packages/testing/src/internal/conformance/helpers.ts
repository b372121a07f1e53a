/**
 * Store calls and assertions the conformance tests share.
 *
 * @internal
 */
import { expect } from "@effect/vitest"
import type * as LockRecord from "@leasehold/lock/LockRecord"
import type * as LockStore from "@leasehold/lock/LockStore"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { absolute, leaseMs, makeOwner } from "./fixture.js"

/**
 * The fields of the contract only, so a store that returns extra attributes (such as `ttl`) still compares.
 *
 * @internal
 */
export const fields = (record: LockRecord.LockRecord): LockRecord.LockRecord => ({
  name: record.name,
  owner: record.owner,
  holder: record.holder,
  leaseUntil: record.leaseUntil,
  leaseMs: record.leaseMs,
  fence: record.fence,
  version: record.version,
  sequence: record.sequence,
  acquiredAt: record.acquiredAt,
  data: record.data,
  reservedBy: record.reservedBy,
  reservedUntil: record.reservedUntil,
  reservedSince: record.reservedSince,
  reservedFrom: record.reservedFrom,
  session: record.session
})

/**
 * Asserts the tag (showing the whole value when it differs) and narrows to that variant.
 *
 * @internal
 */
export const expectTag = <A extends { readonly _tag: string }, T extends A["_tag"]>(
  value: A,
  tag: T
): Extract<A, { readonly _tag: T }> => {
  expect(value._tag, `expected ${tag}, got ${JSON.stringify(value)}`).toBe(tag)
  return value as Extract<A, { readonly _tag: T }>
}

/** @internal */
export const expectSome = <A>(option: Option.Option<A>, what: string): A => {
  if (Option.isNone(option)) throw new Error(`expected ${what}, got None`)
  return option.value
}

/** @internal */
export const expectFence = (fence: number): void => {
  expect(Number.isSafeInteger(fence), `fence ${fence} is a safe integer`).toBe(true)
  expect(fence).toBeGreaterThan(0)
}

/**
 * Acquires `lockName` for a fresh owner, failing the test if the store refuses.
 *
 * @internal
 */
export const acquireNew = (
  store: LockStore.LockStore,
  lockName: string,
  overrides: Partial<Omit<LockStore.AcquireRequest, "name">> = {}
) =>
  Effect.map(
    store.tryAcquire({
      name: lockName,
      owner: makeOwner(),
      holder: "holder-a",
      leaseMs,
      data: undefined,
      takeover: absolute(),
      ...overrides
    }),
    (result) => expectTag(result, "Acquired").record
  )

/**
 * A fresh owner's attempt on `lockName` with `takeover`, whatever the store answers.
 *
 * @internal
 */
export const attempt = (
  store: LockStore.LockStore,
  lockName: string,
  takeover: LockStore.Takeover,
  overrides: Partial<Omit<LockStore.AcquireRequest, "name" | "takeover">> = {}
) =>
  store.tryAcquire({
    name: lockName,
    owner: makeOwner(),
    holder: "holder-b",
    leaseMs,
    data: undefined,
    takeover,
    ...overrides
  })

/** @internal */
export const renewOf = (store: LockStore.LockStore, record: LockRecord.LockRecord, lease: number = leaseMs) =>
  store.renew({ name: record.name, owner: record.owner!, fence: record.fence, leaseMs: lease })

/** @internal */
export const releaseOf = (store: LockStore.LockStore, record: LockRecord.LockRecord) =>
  store.release({ name: record.name, owner: record.owner!, fence: record.fence })

/** @internal */
export const inspectSome = (store: LockStore.LockStore, lockName: string) =>
  Effect.map(store.inspect(lockName), (option) => expectSome(option, `a record for ${lockName}`))

/**
 * Follows cursors to the end, in whatever order the store pages. Pages may be short or even empty, but each stays
 * within `limit`.
 *
 * @internal
 */
export const listAll = (store: LockStore.LockStore, prefix: string, limit?: number) =>
  Effect.gen(function*() {
    const records: Array<LockRecord.LockRecord> = []
    let cursor: string | undefined = undefined
    // A bound on pages, so a store whose cursor never ends fails the test instead of hanging it.
    for (let page = 0; page < 1_000; page++) {
      const result: LockStore.ListPage = yield* store.list({ prefix, cursor, limit })
      if (limit !== undefined) expect(result.records.length).toBeLessThanOrEqual(limit)
      records.push(...result.records)
      cursor = result.cursor
      if (cursor === undefined) return records
    }
    throw new Error("list did not finish within 1000 pages")
  })
