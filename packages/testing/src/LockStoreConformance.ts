/**
 * The `LockStore` conformance suite: one set of tests that every store must pass, so that a behaviour present in one
 * store and absent in another shows up as a failing test rather than as a production surprise.
 *
 * ```ts
 * import { LockStore } from "@leasehold/lock"
 * import * as LockStoreConformance from "@leasehold/testing/LockStoreConformance"
 *
 * LockStoreConformance.suite("memory", () => LockStore.layerMemory)
 * ```
 *
 * The suite never assumes an empty store: every test works under its own random name prefix, so a store built on a
 * shared (even persistent) DynamoDB table passes as well as a fresh memory store. Time moves only through `TestClock`,
 * starting from a realistic epoch so that a DynamoDB store writes realistic `leaseUntil` and `ttl` values.
 *
 * @since 0.1.0
 */
import { describe, expect, it } from "@effect/vitest"
import type * as LockError from "@leasehold/lock/LockError"
import { type LockRecord, maxDataBytes, maxHolderBytes } from "@leasehold/lock/LockRecord"
import * as LockStore from "@leasehold/lock/LockStore"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import { randomBytes } from "node:crypto"

/**
 * What a store may legitimately leave out. Everything else in the contract is required of every store.
 *
 * @since 0.1.0
 * @category models
 */
export interface Features {
  /**
   * Whether `Conflict`, `Lost` and `NotHeld` always carry the current holder. The contract allows `undefined` when the
   * store could not tell; with `false` the suite accepts that, but still checks any holder that is returned.
   * Default: `true` (the memory store, and DynamoDB with `ReturnValuesOnConditionCheckFailure` or its fallback read).
   */
  readonly reportsCurrent: boolean
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly features?: Partial<Features> | undefined
  /** Per-test timeout in ms, for stores that talk to a real server. Default: vitest's. */
  readonly timeout?: number | undefined
}

/** Tests with a live server answer in milliseconds; vitest's default timeout is plenty unless the caller says. */
const defaultFeatures: Features = { reportsCurrent: true }

/** A lease long enough that no test expires it by accident, short enough to read the arithmetic. */
const leaseMs = 15_000

/** The default of `Lock`, so absolute takeovers are tested at the boundary users get. */
const maxClockSkewMs = 10_000

const absolute = (skew: number = maxClockSkewMs): LockStore.Takeover => ({ _tag: "Absolute", maxClockSkewMs: skew })

const observed = (stale?: LockStore.StaleObservation): LockStore.Takeover => ({ _tag: "Observed", stale })

/** 128 random bits, hex, as `Lock` makes owners; real randomness because names must not collide across runs. */
const makeOwner = (): string => randomBytes(16).toString("hex")

const utf8Bytes = (text: string): number => new TextEncoder().encode(text).length

/** The fields of the contract only, so a store that returns extra attributes (such as `ttl`) still compares. */
const fields = (record: LockRecord): LockRecord => ({
  name: record.name,
  owner: record.owner,
  holder: record.holder,
  leaseUntil: record.leaseUntil,
  leaseMs: record.leaseMs,
  fence: record.fence,
  version: record.version,
  acquiredAt: record.acquiredAt,
  data: record.data
})

/** Asserts the tag (showing the whole value when it differs) and narrows to that variant. */
const expectTag = <A extends { readonly _tag: string }, T extends A["_tag"]>(
  value: A,
  tag: T
): Extract<A, { readonly _tag: T }> => {
  expect(value._tag, `expected ${tag}, got ${JSON.stringify(value)}`).toBe(tag)
  return value as Extract<A, { readonly _tag: T }>
}

const expectSome = <A>(option: Option.Option<A>, what: string): A => {
  if (Option.isNone(option)) throw new Error(`expected ${what}, got None`)
  return option.value
}

const expectFence = (fence: number): void => {
  expect(Number.isSafeInteger(fence), `fence ${fence} is a safe integer`).toBe(true)
  expect(fence).toBeGreaterThan(0)
}

/**
 * What every test gets: the store under test and names private to this test run.
 */
interface Fixture {
  readonly store: LockStore.Service
  /** A name under this test's private prefix. */
  readonly name: (label: string) => string
  /** The private prefix itself, for `list`. */
  readonly prefix: string
  /** Checks a `current` field against the holder the test expects (honouring `reportsCurrent`). */
  readonly expectCurrent: (actual: LockRecord | undefined, expected: LockRecord | undefined) => void
}

/**
 * Registers the conformance tests for one store. `makeLayer` is called once per test and the layer is built inside
 * that test, so a layer that needs a shared server (and fails with that server's errors) can be passed as it is.
 *
 * @since 0.1.0
 * @category tests
 */
export const suite = (
  storeName: string,
  makeLayer: () => Layer.Layer<LockStore.LockStore, unknown>,
  options: Options = {}
): void => {
  const features: Features = { ...defaultFeatures, ...options.features }
  // Read once: the tests replay the same realistic epoch, and TestClock moves it from there.
  const epoch = Date.now()

  const expectCurrent = (actual: LockRecord | undefined, expected: LockRecord | undefined): void => {
    if (expected === undefined || expected.owner === undefined) {
      // A free lock has no holder to report, whatever the store knows.
      expect(actual).toBeUndefined()
    } else if (actual !== undefined || features.reportsCurrent) {
      expect(actual === undefined ? undefined : fields(actual)).toEqual(fields(expected))
    }
  }

  const test = (title: string, body: (fixture: Fixture) => Effect.Effect<void, unknown, LockStore.LockStore>) =>
    it.effect(
      title,
      () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(epoch)
          const store = yield* LockStore.LockStore
          const prefix = `leasehold-conformance/${randomBytes(8).toString("hex")}/`
          yield* body({ store, prefix, name: (label) => prefix + label, expectCurrent })
        }).pipe(Effect.provide(makeLayer())),
      options.timeout
    )

  /** Acquires `lockName` for a fresh owner, failing the test if the store refuses. */
  const acquireNew = (
    store: LockStore.Service,
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

  const attempt = (
    store: LockStore.Service,
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

  const renewOf = (store: LockStore.Service, record: LockRecord, lease: number = leaseMs) =>
    store.renew({ name: record.name, owner: record.owner!, fence: record.fence, leaseMs: lease })

  const releaseOf = (store: LockStore.Service, record: LockRecord) =>
    store.release({ name: record.name, owner: record.owner!, fence: record.fence })

  const inspectSome = (store: LockStore.Service, lockName: string) =>
    Effect.map(store.inspect(lockName), (option) => expectSome(option, `a record for ${lockName}`))

  /**
   * Follows cursors to the end, in whatever order the store pages. Pages may be short or even empty, but each stays
   * within `limit`.
   */
  const listAll = (store: LockStore.Service, prefix: string, limit?: number) =>
    Effect.gen(function*() {
      const records: Array<LockRecord> = []
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

  describe(`LockStore conformance: ${storeName}`, () => {
    describe("tryAcquire", () => {
      test("acquires a new name: the record is the request's, leased from now, with a fence", ({ name, store }) =>
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          const owner = makeOwner()
          const result = yield* store.tryAcquire({
            name: name("new"),
            owner,
            holder: "worker-1",
            leaseMs,
            data: "payload",
            takeover: absolute()
          })
          const record = expectTag(result, "Acquired").record
          expect(record.name).toBe(name("new"))
          expect(record.owner).toBe(owner)
          expect(record.holder).toBe("worker-1")
          expect(record.leaseUntil).toBe(now + leaseMs)
          expect(record.leaseMs).toBe(leaseMs)
          expect(record.acquiredAt).toBe(now)
          expect(record.data).toBe("payload")
          expectFence(record.fence)
          expect(fields(yield* inspectSome(store, name("new")))).toEqual(fields(record))
        }))

      test("a new name's fence starts at or above the current epoch ms (as after a TTL delete)", ({ name, store }) =>
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          const record = yield* acquireNew(store, name("fresh"))
          expect(record.fence).toBeGreaterThanOrEqual(now)
        }))

      test("a second acquire while held conflicts, reports the holder and changes nothing", ({ expectCurrent, name, store }) =>
        Effect.gen(function*() {
          const held = yield* acquireNew(store, name("held"), { data: "mine" })
          yield* TestClock.adjust(leaseMs - 1)
          const conflict = expectTag(yield* attempt(store, name("held"), absolute()), "Conflict")
          expectCurrent(conflict.current, held)
          // The holder itself, with a new owner id, is a different acquisition and conflicts too.
          const again = expectTag(yield* attempt(store, name("held"), absolute(), { holder: "holder-a" }), "Conflict")
          expectCurrent(again.current, held)
          expect(fields(yield* inspectSome(store, name("held")))).toEqual(fields(held))
        }))

      for (const skew of [0, maxClockSkewMs]) {
        test(`absolute (skew ${skew} ms): no takeover at leaseUntil + skew, takeover 1 ms later`, ({ expectCurrent, name, store }) =>
          Effect.gen(function*() {
            const held = yield* acquireNew(store, name("expiring"))
            yield* TestClock.adjust(leaseMs + skew)
            expect(yield* Clock.currentTimeMillis).toBe(held.leaseUntil + skew)
            const atBoundary = expectTag(yield* attempt(store, name("expiring"), absolute(skew)), "Conflict")
            expectCurrent(atBoundary.current, held)

            yield* TestClock.adjust(1)
            const now = yield* Clock.currentTimeMillis
            const owner = makeOwner()
            const taken = yield* acquireNew(store, name("expiring"), {
              owner,
              holder: "holder-b",
              takeover: absolute(skew)
            })
            expect(taken.owner).toBe(owner)
            expect(taken.holder).toBe("holder-b")
            expect(taken.leaseUntil).toBe(now + leaseMs)
            expect(taken.acquiredAt).toBe(now)
            expect(taken.fence).toBeGreaterThan(held.fence)
            expectFence(taken.fence)
          }))
      }

      test("absolute: a released lock is free at once, whatever its old lease", ({ name, store }) =>
        Effect.gen(function*() {
          const first = yield* acquireNew(store, name("released"))
          expectTag(yield* releaseOf(store, first), "Released")
          const second = yield* acquireNew(store, name("released"), { holder: "holder-b" })
          expect(second.fence).toBeGreaterThan(first.fence)
        }))

      test("observed: without a stale observation a held lock conflicts, however old its lease", ({ expectCurrent, name, store }) =>
        Effect.gen(function*() {
          const held = yield* acquireNew(store, name("observed"))
          yield* TestClock.adjust("1 hour")
          const conflict = expectTag(yield* attempt(store, name("observed"), observed()), "Conflict")
          expectCurrent(conflict.current, held)
          expect(fields(yield* inspectSome(store, name("observed")))).toEqual(fields(held))
        }))

      test("observed: a stale observation that no longer matches conflicts (renewed, re-acquired, other owner)", ({ expectCurrent, name, store }) =>
        Effect.gen(function*() {
          const lockName = name("observed-mismatch")
          const held = yield* acquireNew(store, lockName)
          const seen = { owner: held.owner!, fence: held.fence, version: held.version }

          // The holder renewed after the observation started: its version moved.
          yield* TestClock.adjust(leaseMs / 3)
          const renewed = expectTag(yield* renewOf(store, held), "Renewed").record
          yield* TestClock.adjust(leaseMs)
          const afterRenew = expectTag(yield* attempt(store, lockName, observed(seen)), "Conflict")
          expectCurrent(afterRenew.current, renewed)

          const renewedSeen = { owner: renewed.owner!, fence: renewed.fence, version: renewed.version }
          const wrongOwner = { ...renewedSeen, owner: makeOwner() }
          expectTag(yield* attempt(store, lockName, observed(wrongOwner)), "Conflict")
          const wrongFence = { ...renewedSeen, fence: renewed.fence - 1 }
          expectTag(yield* attempt(store, lockName, observed(wrongFence)), "Conflict")

          // Released and re-acquired by someone else: the old observation is about a holder that is gone.
          expectTag(yield* releaseOf(store, renewed), "Released")
          const next = yield* acquireNew(store, lockName, { takeover: observed() })
          const afterHandover = expectTag(yield* attempt(store, lockName, observed(renewedSeen)), "Conflict")
          expectCurrent(afterHandover.current, next)
          expect(fields(yield* inspectSome(store, lockName))).toEqual(fields(next))
        }))

      test("observed: an observation taken before a renew at the same wall-clock time conflicts", ({ expectCurrent, name, store }) =>
        Effect.gen(function*() {
          const lockName = name("observed-still-clock")
          const held = yield* acquireNew(store, lockName)
          const seen = { owner: held.owner!, fence: held.fence, version: held.version }
          // The holder's wall clock stands still: its renew writes the same leaseUntil, and only the version moves.
          const renewed = expectTag(yield* renewOf(store, held), "Renewed").record
          expect(renewed.leaseUntil).toBe(held.leaseUntil)
          expect(renewed.version).not.toBe(held.version)
          // The observer waited a full lease on its own clock; the holder renewed meanwhile, so it is alive.
          yield* TestClock.adjust(leaseMs + 1)
          const conflict = expectTag(yield* attempt(store, lockName, observed(seen)), "Conflict")
          expectCurrent(conflict.current, renewed)
          expect(fields(yield* inspectSome(store, lockName))).toEqual(fields(renewed))
          // An observation of the renewed record, unchanged for a lease, does take over.
          const taken = yield* acquireNew(store, lockName, {
            takeover: observed({ owner: renewed.owner!, fence: renewed.fence, version: renewed.version })
          })
          expect(taken.fence).toBeGreaterThan(held.fence)
        }))

      test("observed: a matching stale observation takes over", ({ name, store }) =>
        Effect.gen(function*() {
          const lockName = name("observed-match")
          const held = yield* acquireNew(store, lockName)
          const conflict = expectTag(yield* attempt(store, lockName, observed()), "Conflict")
          const current = conflict.current ?? (yield* inspectSome(store, lockName))
          // The acquirer watched the version stay put for a full leaseMs on its own clock.
          yield* TestClock.adjust(current.leaseMs)
          const now = yield* Clock.currentTimeMillis
          const owner = makeOwner()
          const taken = yield* acquireNew(store, lockName, {
            owner,
            takeover: observed({ owner: current.owner!, fence: current.fence, version: current.version })
          })
          expect(taken.owner).toBe(owner)
          expect(taken.leaseUntil).toBe(now + leaseMs)
          expect(taken.fence).toBeGreaterThan(held.fence)
        }))

      test("observed: a free lock (new or released) is acquired without a stale observation", ({ name, store }) =>
        Effect.gen(function*() {
          const first = yield* acquireNew(store, name("observed-free"), { takeover: observed() })
          expectTag(yield* releaseOf(store, first), "Released")
          const second = yield* acquireNew(store, name("observed-free"), { takeover: observed() })
          expect(second.fence).toBeGreaterThan(first.fence)
        }))

      test("locks on different names are independent", ({ name, store }) =>
        Effect.gen(function*() {
          const a = yield* acquireNew(store, name("a"))
          const ab = yield* acquireNew(store, name("a/b"))
          const upper = yield* acquireNew(store, name("A"))
          expectTag(yield* releaseOf(store, a), "Released")
          for (const record of [ab, upper]) {
            expect(fields(yield* inspectSome(store, record.name))).toEqual(fields(record))
          }
        }))
    })

    describe("renew", () => {
      test("sets leaseUntil to now + lease and keeps owner, fence, acquiredAt and data", ({ name, store }) =>
        Effect.gen(function*() {
          const held = yield* acquireNew(store, name("renew"), { data: "kept" })
          yield* TestClock.adjust(leaseMs / 3)
          const now = yield* Clock.currentTimeMillis
          const renewed = expectTag(yield* renewOf(store, held), "Renewed").record
          expect(fields(renewed)).toEqual({ ...fields(held), leaseUntil: now + leaseMs, version: renewed.version })
          expect(renewed.version).not.toBe(held.version)
          expect(fields(yield* inspectSome(store, name("renew")))).toEqual(fields(renewed))
        }))

      test("is idempotent: renewing twice in a row succeeds both times", ({ name, store }) =>
        Effect.gen(function*() {
          const held = yield* acquireNew(store, name("idempotent"))
          yield* TestClock.adjust(1_000)
          const first = expectTag(yield* renewOf(store, held), "Renewed").record
          const second = expectTag(yield* renewOf(store, held), "Renewed").record
          // The same record but for the version, which every write changes.
          expect(fields(second)).toEqual({ ...fields(first), version: second.version })
          expect(second.version).not.toBe(first.version)
          yield* TestClock.adjust(1_000)
          const third = expectTag(yield* renewOf(store, held), "Renewed").record
          expect(third.leaseUntil).toBe(first.leaseUntil + 1_000)
          expect(third.fence).toBe(held.fence)
        }))

      test("succeeds while owner and fence match, even after the lease ran out", ({ name, store }) =>
        Effect.gen(function*() {
          const held = yield* acquireNew(store, name("late"))
          yield* TestClock.adjust(leaseMs + maxClockSkewMs + 1)
          const now = yield* Clock.currentTimeMillis
          const renewed = expectTag(yield* renewOf(store, held), "Renewed").record
          expect(renewed.leaseUntil).toBe(now + leaseMs)
        }))

      test("fails with Lost and reports the new holder after a takeover", ({ expectCurrent, name, store }) =>
        Effect.gen(function*() {
          const held = yield* acquireNew(store, name("stolen"))
          yield* TestClock.adjust(leaseMs + maxClockSkewMs + 1)
          const thief = yield* acquireNew(store, name("stolen"), { holder: "holder-b" })
          const lost = expectTag(yield* renewOf(store, held), "Lost")
          expectCurrent(lost.current, thief)
          expect(fields(yield* inspectSome(store, name("stolen")))).toEqual(fields(thief))
        }))

      test("fails with Lost and no holder after release; a late renew cannot resurrect the lock", ({ expectCurrent, name, store }) =>
        Effect.gen(function*() {
          const held = yield* acquireNew(store, name("released"))
          expectTag(yield* releaseOf(store, held), "Released")
          const lost = expectTag(yield* renewOf(store, held), "Lost")
          expectCurrent(lost.current, undefined)
          const record = yield* inspectSome(store, name("released"))
          expect(record.owner).toBeUndefined()
          expect(record.fence).toBe(held.fence)
          // Still free: anyone can take it at once.
          yield* acquireNew(store, name("released"), { holder: "holder-b" })
        }))

      test("fails with Lost for a wrong fence or a wrong owner, leaving the holder in place", ({ expectCurrent, name, store }) =>
        Effect.gen(function*() {
          const held = yield* acquireNew(store, name("wrong"))
          yield* TestClock.adjust(1_000)
          const wrongFence = yield* store.renew({
            name: held.name,
            owner: held.owner!,
            fence: held.fence + 1,
            leaseMs
          })
          expectCurrent(expectTag(wrongFence, "Lost").current, held)
          const wrongOwner = yield* store.renew({ name: held.name, owner: makeOwner(), fence: held.fence, leaseMs })
          expectCurrent(expectTag(wrongOwner, "Lost").current, held)
          expect(fields(yield* inspectSome(store, name("wrong")))).toEqual(fields(held))
        }))

      test("of a name never acquired is Lost and creates no record", ({ expectCurrent, name, store }) =>
        Effect.gen(function*() {
          const lost = yield* store.renew({ name: name("ghost"), owner: makeOwner(), fence: 1, leaseMs })
          expectCurrent(expectTag(lost, "Lost").current, undefined)
          expect(Option.isNone(yield* store.inspect(name("ghost")))).toBe(true)
        }))
    })

    describe("release", () => {
      test("clears the holder fields and keeps the record and its fence", ({ name, store }) =>
        Effect.gen(function*() {
          const held = yield* acquireNew(store, name("release"), { data: "gone" })
          yield* TestClock.adjust(1_000)
          expectTag(yield* releaseOf(store, held), "Released")
          const record = yield* inspectSome(store, name("release"))
          expect(record.name).toBe(name("release"))
          expect(record.owner).toBeUndefined()
          expect(record.holder).toBeUndefined()
          expect(record.acquiredAt).toBeUndefined()
          expect(record.data).toBeUndefined()
          expect(record.leaseUntil).toBe(0)
          expect(record.fence).toBe(held.fence)
        }))

      test("is NotHeld for a wrong owner or a wrong fence, leaving the holder in place", ({ expectCurrent, name, store }) =>
        Effect.gen(function*() {
          const held = yield* acquireNew(store, name("guarded"))
          const wrongOwner = yield* store.release({ name: held.name, owner: makeOwner(), fence: held.fence })
          expectCurrent(expectTag(wrongOwner, "NotHeld").current, held)
          const wrongOwnerNoFence = yield* store.release({ name: held.name, owner: makeOwner(), fence: undefined })
          expectCurrent(expectTag(wrongOwnerNoFence, "NotHeld").current, held)
          const wrongFence = yield* store.release({ name: held.name, owner: held.owner!, fence: held.fence + 1 })
          expectCurrent(expectTag(wrongFence, "NotHeld").current, held)
          expect(fields(yield* inspectSome(store, name("guarded")))).toEqual(fields(held))
        }))

      test("by owner alone (fence unknown) releases", ({ name, store }) =>
        Effect.gen(function*() {
          const held = yield* acquireNew(store, name("owner-only"))
          expectTag(yield* store.release({ name: held.name, owner: held.owner!, fence: undefined }), "Released")
          const record = yield* inspectSome(store, name("owner-only"))
          expect(record.owner).toBeUndefined()
          expect(record.fence).toBe(held.fence)
        }))

      test("twice: the second is NotHeld with no holder", ({ expectCurrent, name, store }) =>
        Effect.gen(function*() {
          const held = yield* acquireNew(store, name("twice"))
          expectTag(yield* releaseOf(store, held), "Released")
          expectCurrent(expectTag(yield* releaseOf(store, held), "NotHeld").current, undefined)
        }))

      test("by a previous owner after a takeover is NotHeld and keeps the new holder", ({ expectCurrent, name, store }) =>
        Effect.gen(function*() {
          const old = yield* acquireNew(store, name("previous"))
          yield* TestClock.adjust(leaseMs + maxClockSkewMs + 1)
          const next = yield* acquireNew(store, name("previous"), { holder: "holder-b" })
          expectCurrent(expectTag(yield* releaseOf(store, old), "NotHeld").current, next)
          const ownerOnly = yield* store.release({ name: old.name, owner: old.owner!, fence: undefined })
          expectCurrent(expectTag(ownerOnly, "NotHeld").current, next)
          expect(fields(yield* inspectSome(store, name("previous")))).toEqual(fields(next))
        }))

      test("of a name never acquired is NotHeld and creates no record", ({ expectCurrent, name, store }) =>
        Effect.gen(function*() {
          const result = yield* store.release({ name: name("ghost"), owner: makeOwner(), fence: undefined })
          expectCurrent(expectTag(result, "NotHeld").current, undefined)
          expect(Option.isNone(yield* store.inspect(name("ghost")))).toBe(true)
        }))
    })

    describe("version", () => {
      test("every acquire, renew, release and force release changes it, even with the clock standing still", ({ name, store }) =>
        Effect.gen(function*() {
          const lockName = name("version")
          const seen: Array<number> = []
          const expectNew = (record: LockRecord, write: string) => {
            expect(Number.isSafeInteger(record.version), `${write}: version ${record.version} is a safe integer`).toBe(
              true
            )
            expect(seen, `${write}: version ${record.version} was not seen before`).not.toContain(record.version)
            seen.push(record.version)
          }
          // TestClock does not move: every write happens at the same wall-clock time.
          const held = yield* acquireNew(store, lockName)
          expectNew(held, "acquire")
          for (let i = 0; i < 3; i++) {
            const renewed = expectTag(yield* renewOf(store, held), "Renewed").record
            expect(renewed.leaseUntil).toBe(held.leaseUntil)
            expectNew(renewed, `renew ${i + 1}`)
            expect((yield* inspectSome(store, lockName)).version).toBe(renewed.version)
          }
          expectTag(yield* releaseOf(store, held), "Released")
          expectNew(yield* inspectSome(store, lockName), "release")
          const again = yield* acquireNew(store, lockName, { takeover: observed() })
          expectNew(again, "acquire after release")
          const before = expectSome(yield* store.forceRelease(lockName), "the force-released holder")
          expect(before.version).toBe(again.version)
          expectNew(yield* inspectSome(store, lockName), "force release")
          const third = yield* acquireNew(store, lockName)
          expectNew(third, "acquire after force release")
          // A takeover is an acquire too.
          yield* TestClock.adjust(leaseMs + maxClockSkewMs + 1)
          expectNew(yield* acquireNew(store, lockName, { holder: "holder-b" }), "takeover")
        }))
    })

    describe("fence", () => {
      test("strictly increases across many acquire, release, takeover and force-release cycles", ({ name, store }) =>
        Effect.gen(function*() {
          const lockName = name("fence")
          let last = 0
          const check = (record: LockRecord) => {
            expectFence(record.fence)
            expect(record.fence).toBeGreaterThan(last)
            last = record.fence
          }
          for (let cycle = 0; cycle < 40; cycle++) {
            const held = yield* acquireNew(store, lockName, { takeover: cycle % 2 === 0 ? absolute() : observed() })
            check(held)
            yield* TestClock.adjust(1_000)
            const renewed = expectTag(yield* renewOf(store, held), "Renewed").record
            // Renewing never moves the fence.
            expect(renewed.fence).toBe(held.fence)
            switch (cycle % 4) {
              case 0: {
                expectTag(yield* releaseOf(store, held), "Released")
                break
              }
              case 1: {
                yield* TestClock.adjust(leaseMs + maxClockSkewMs + 1)
                const taken = yield* acquireNew(store, lockName, { holder: "holder-b" })
                check(taken)
                expectTag(yield* releaseOf(store, taken), "Released")
                break
              }
              case 2: {
                const stale = { owner: renewed.owner!, fence: renewed.fence, version: renewed.version }
                const taken = yield* acquireNew(store, lockName, { takeover: observed(stale) })
                check(taken)
                expectSome(yield* store.forceRelease(lockName), "the force-released holder")
                break
              }
              case 3: {
                expectSome(yield* store.forceRelease(lockName), "the force-released holder")
                break
              }
            }
            expect((yield* inspectSome(store, lockName)).fence).toBe(last)
          }
        }))
    })

    describe("inspect", () => {
      test("of a name never acquired is None", ({ name, store }) =>
        Effect.gen(function*() {
          expect(Option.isNone(yield* store.inspect(name("unknown")))).toBe(true)
          // A conflict-free acquire of a neighbour does not make this one appear.
          yield* acquireNew(store, name("unknown/child"))
          expect(Option.isNone(yield* store.inspect(name("unknown")))).toBe(true)
        }))
    })

    describe("list", () => {
      // Order is store-defined: what every store owes is each matching record exactly once across the pages.
      const labels = ["b", "a", "c/1", "a/x", "a0", "B", "b-1"]

      /** The listed names are exactly `expected`: none missing, none extra, none twice. */
      const expectExactlyOnce = (listed: ReadonlyArray<LockRecord>, expected: Iterable<string>) => {
        const names = listed.map((record) => record.name)
        const twice = names.filter((name, index) => names.indexOf(name) !== index)
        expect(twice, "names listed more than once").toEqual([])
        expect([...names].sort()).toEqual(Array.from(expected).sort())
      }

      const populate = (store: LockStore.Service, base: string) =>
        Effect.gen(function*() {
          const records = new Map<string, LockRecord>()
          for (const label of labels) {
            const record = yield* acquireNew(store, base + label)
            records.set(record.name, record)
          }
          // Released records are still records: they carry the fence.
          const released = records.get(base + "a0")!
          expectTag(yield* releaseOf(store, released), "Released")
          records.set(released.name, yield* inspectSome(store, released.name))
          return records
        })

      test("filters by prefix and returns every record exactly once", ({ prefix, store }) =>
        Effect.gen(function*() {
          const base = prefix + "list/"
          const records = yield* populate(store, base)
          // Neighbours that share part of the prefix but do not start with it.
          yield* acquireNew(store, prefix + "list")
          yield* acquireNew(store, prefix + "list-other/a")
          yield* acquireNew(store, prefix + "lisT/a")

          const listed = yield* listAll(store, base)
          expectExactlyOnce(listed, records.keys())
          for (const record of listed) {
            expect(fields(record)).toEqual(fields(records.get(record.name)!))
          }
        }))

      for (const limit of [1, 2, 3, 7, 50]) {
        test(`paginates with limit ${limit}: pages within the limit, every record exactly once, to an end`, ({ prefix, store }) =>
          Effect.gen(function*() {
            const base = prefix + "pages/"
            const records = yield* populate(store, base)
            yield* acquireNew(store, prefix + "pages-after")
            // listAll checks each page against the limit and fails a listing whose cursor never ends.
            const listed = yield* listAll(store, base, limit)
            expectExactlyOnce(listed, records.keys())
            for (const record of listed) {
              expect(fields(record)).toEqual(fields(records.get(record.name)!))
            }
          }))
      }

      test("a limit that is not a whole number of 1 or more fails with a non-retryable error naming it", ({ prefix, store }) =>
        Effect.gen(function*() {
          yield* acquireNew(store, prefix + "limited")
          for (const limit of [0, -1, 1.5, NaN, -Infinity, "2" as unknown as number]) {
            const error = yield* Effect.flip(store.list({ prefix, limit }))
            expect(error._tag, `limit ${String(limit)}`).toBe("LockStoreError")
            expect(error.operation).toBe("list")
            expect(error.retryable).toBe(false)
            expect(error.message).toContain(`limit ${typeof limit === "string" ? JSON.stringify(limit) : limit}`)
          }
        }))

      test("an infinite limit is no limit: one page of every record, no cursor", ({ prefix, store }) =>
        Effect.gen(function*() {
          const records = yield* populate(store, prefix + "all/")
          const page = yield* store.list({ prefix: prefix + "all/", limit: Infinity })
          expectExactlyOnce(page.records, records.keys())
          expect(page.cursor).toBeUndefined()
        }))

      test("of a prefix with no records is empty", ({ prefix, store }) =>
        Effect.gen(function*() {
          yield* acquireNew(store, prefix + "elsewhere")
          expect(yield* listAll(store, prefix + "nothing/")).toEqual([])
          expect(yield* listAll(store, prefix + "nothing/", 2)).toEqual([])
        }))
    })

    describe("forceRelease", () => {
      test("returns the holder it removed and frees the lock, keeping the fence", ({ expectCurrent, name, store }) =>
        Effect.gen(function*() {
          const held = yield* acquireNew(store, name("force"), { data: "x" })
          const removed = expectSome(yield* store.forceRelease(name("force")), "the removed holder")
          expect(fields(removed)).toEqual(fields(held))
          const record = yield* inspectSome(store, name("force"))
          expect(record.owner).toBeUndefined()
          expect(record.data).toBeUndefined()
          expect(record.fence).toBe(held.fence)
          // The old holder learns it lost the lock at its next heartbeat.
          expectCurrent(expectTag(yield* renewOf(store, held), "Lost").current, undefined)
          const next = yield* acquireNew(store, name("force"), { holder: "holder-b" })
          expect(next.fence).toBeGreaterThan(held.fence)
        }))

      test("returns None for a free lock and for a name never acquired, creating nothing", ({ name, store }) =>
        Effect.gen(function*() {
          const held = yield* acquireNew(store, name("free"))
          expectTag(yield* releaseOf(store, held), "Released")
          expect(Option.isNone(yield* store.forceRelease(name("free")))).toBe(true)
          expect((yield* inspectSome(store, name("free"))).fence).toBe(held.fence)
          expect(Option.isNone(yield* store.forceRelease(name("ghost")))).toBe(true)
          expect(Option.isNone(yield* store.inspect(name("ghost")))).toBe(true)
        }))
    })

    describe("data", () => {
      test("round-trips unicode data through acquire, conflict, renew, inspect and list", ({ expectCurrent, name, prefix, store }) =>
        Effect.gen(function*() {
          const data = JSON.stringify({ job: "nightly-report", by: "Zoë 🔒 日本語", quote: "\"'\\" })
          const held = yield* acquireNew(store, name("data"), { data })
          expect(held.data).toBe(data)
          const conflict = expectTag(yield* attempt(store, name("data"), absolute()), "Conflict")
          expectCurrent(conflict.current, held)
          expect(expectTag(yield* renewOf(store, held), "Renewed").record.data).toBe(data)
          expect((yield* inspectSome(store, name("data"))).data).toBe(data)
          const [listed] = yield* listAll(store, prefix)
          expect(listed?.data).toBe(data)
        }))

      test("of maxDataBytes, with a holder of maxHolderBytes and the longest name, is taken; one byte more is refused", ({ name, store }) =>
        Effect.gen(function*() {
          const base = name("big/")
          const lockName = base + "x".repeat(store.maxNameBytes - utf8Bytes(base))
          // Four- and two-byte characters: the limits are in UTF-8 bytes, not in string length.
          const data = "🔒".repeat(maxDataBytes / 4)
          const holder = "é".repeat(maxHolderBytes / 2)
          expect([utf8Bytes(lockName), utf8Bytes(data), utf8Bytes(holder)]).toEqual([
            store.maxNameBytes,
            maxDataBytes,
            maxHolderBytes
          ])
          const held = yield* acquireNew(store, lockName, { data, holder })
          expect([held.data === data, held.holder === holder]).toEqual([true, true])
          const renewed = expectTag(yield* renewOf(store, held), "Renewed").record
          expect(renewed.data === data).toBe(true)
          expect((yield* inspectSome(store, lockName)).data === data).toBe(true)
          expectTag(yield* releaseOf(store, held), "Released")

          for (const overrides of [{ data: data + "x" }, { holder: holder + "x" }, { data, holder: holder + "x" }]) {
            const outcome = yield* Effect.either(attempt(store, lockName, absolute(), overrides))
            // Compared in brief: a failing comparison of the records themselves would print megabytes.
            expect(Either.isLeft(outcome) ? [outcome.left._tag, outcome.left.retryable] : outcome.right._tag)
              .toEqual(["LockStoreError", false])
          }
          // Refused before anything was written: the lock is still free, with the fence it had.
          const record = yield* inspectSome(store, lockName)
          expect([record.owner, record.fence]).toEqual([undefined, held.fence])
        }))

      test("or a holder with a lone surrogate is refused before anything is written", ({ name, store }) =>
        Effect.gen(function*() {
          const lockName = name("ill-formed-payload")
          for (const overrides of [{ data: "ab\uD83D" }, { holder: "worker \uDC00" }]) {
            const outcome = yield* Effect.either(attempt(store, lockName, absolute(), overrides))
            expect(Either.isLeft(outcome) ? [outcome.left._tag, outcome.left.retryable] : outcome.right._tag)
              .toEqual(["LockStoreError", false])
          }
          expect(Option.isNone(yield* store.inspect(lockName))).toBe(true)
        }))

      test("is cleared on release and replaced (or absent) for the next holder", ({ name, store }) =>
        Effect.gen(function*() {
          const first = yield* acquireNew(store, name("data"), { data: "first" })
          expectTag(yield* releaseOf(store, first), "Released")
          expect((yield* inspectSome(store, name("data"))).data).toBeUndefined()
          const second = yield* acquireNew(store, name("data"), { data: "second" })
          expect(second.data).toBe("second")
          yield* TestClock.adjust(leaseMs + maxClockSkewMs + 1)
          const third = yield* acquireNew(store, name("data"), { data: undefined })
          expect(third.data).toBeUndefined()
          expect((yield* inspectSome(store, name("data"))).data).toBeUndefined()
        }))
    })

    describe("names", () => {
      test("a name of exactly maxNameBytes UTF-8 bytes works (multi-byte characters count as bytes)", ({ name, prefix, store }) =>
        Effect.gen(function*() {
          const base = name("long/")
          const room = store.maxNameBytes - utf8Bytes(base)
          expect(room, "maxNameBytes leaves room after the test prefix").toBeGreaterThan(8)
          // Four-byte characters, then one character of the remaining width.
          const tail = ["", "a", "é", "日"][room % 4]!
          const lockName = base + "🔒".repeat(Math.floor(room / 4)) + tail
          expect(utf8Bytes(lockName)).toBe(store.maxNameBytes)
          expect(lockName.length).toBeLessThan(store.maxNameBytes)

          const held = yield* acquireNew(store, lockName)
          expect(held.name).toBe(lockName)
          expect((yield* inspectSome(store, lockName)).name).toBe(lockName)
          expectTag(yield* renewOf(store, held), "Renewed")
          expect((yield* listAll(store, prefix)).map((record) => record.name)).toEqual([lockName])
          expectTag(yield* releaseOf(store, held), "Released")
          expect((yield* acquireNew(store, lockName)).fence).toBeGreaterThan(held.fence)
        }))

      /** Every operation on `lockName` fails with a non-retryable `LockStoreError`, and nothing is written. */
      const expectRefused = (store: LockStore.Service, lockName: string) =>
        Effect.gen(function*() {
          const attempts = [
            store.tryAcquire({
              name: lockName,
              owner: "o",
              holder: "h",
              leaseMs,
              data: undefined,
              takeover: { _tag: "Absolute", maxClockSkewMs }
            }),
            store.renew({ name: lockName, owner: "o", fence: 1, leaseMs }),
            store.release({ name: lockName, owner: "o", fence: undefined }),
            store.inspect(lockName),
            store.forceRelease(lockName)
          ] as const
          for (const attempt of attempts) {
            const error = yield* Effect.flip(attempt as Effect.Effect<unknown, LockError.LockStoreError>)
            expect(error._tag, JSON.stringify(lockName)).toBe("LockStoreError")
            expect(error.retryable).toBe(false)
          }
        })

      test("a name one byte over maxNameBytes fails every operation with a non-retryable error", ({ name, store }) =>
        Effect.gen(function*() {
          const base = name("over/")
          const lockName = base + "x".repeat(store.maxNameBytes - utf8Bytes(base) + 1)
          expect(utf8Bytes(lockName)).toBe(store.maxNameBytes + 1)
          yield* expectRefused(store, lockName)
        }))

      test("an empty name fails every operation with a non-retryable error", ({ store }) => expectRefused(store, ""))

      // UTF-8 (DynamoDB's encoding) has no encoding for half a surrogate pair: such names would become one item.
      test("a name with a lone surrogate fails every operation with a non-retryable error", ({ name, prefix, store }) =>
        Effect.gen(function*() {
          for (const lockName of [name("orders/ab\uD83D"), name("orders/ab\uDC00"), name("\uDE00\uD83D")]) {
            yield* expectRefused(store, lockName)
          }
          // The well-formed name they are halves of is a lock like any other, and nothing else was written.
          const whole = yield* acquireNew(store, name("orders/ab\uD83D\uDE00"))
          expect((yield* listAll(store, prefix)).map((record) => record.name)).toEqual([whole.name])
          expect((yield* listAll(store, name("orders/ab\uD83D"))).map((record) => record.name)).toEqual([whole.name])
        }))
    })
  })
}
