/**
 * The conformance tests of `tryAcquireAll`: free locks taken in one atomic write, or none. The operation is optional,
 * and a store may answer `Unsupported`: a store without it skips these tests, and one that answers `Unsupported` must
 * have changed nothing and answer the same again before its test is skipped.
 *
 * @internal
 */
import { describe, expect } from "@effect/vitest"
import * as LeaseSession from "@leasehold/core/session/LeaseSession"
import * as LockProtocol from "@leasehold/core/store/LockProtocol"
import * as LockRecord from "@leasehold/lock/LockRecord"
import type * as LockStore from "@leasehold/lock/LockStore"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { TestClock } from "../effectLine.js"
import { absolute, type Fixture, leaseMs, makeOwner, maxClockSkewMs, observed, type Test } from "./fixture.js"
import { acquireNew, attempt, expectFence, expectTag, fields, inspectSome, listAll, releaseOf } from "./helpers.js"

/** Short against the lease, as the reservation tests have it. */
const reserveMs = 2_000

/** A fresh owner's request for `lockName`, as `Lock.withLocks` makes them (observed takeover, nothing stale). */
const requestFor = (
  lockName: string,
  overrides: Partial<Omit<LockStore.AcquireRequest, "name">> = {}
): LockStore.AcquireRequest => ({
  name: lockName,
  owner: makeOwner(),
  holder: "holder-all",
  leaseMs,
  data: undefined,
  takeover: observed(),
  ...overrides
})

/** Each name's record as the contract has it, or `undefined` for none. */
const snapshot = (store: LockStore.LockStore, names: ReadonlyArray<string>) =>
  Effect.forEach(
    names,
    (lockName) =>
      Effect.map(store.inspect(lockName), (record) => Option.isNone(record) ? undefined : fields(record.value))
  )

/** The store's `tryAcquireAll`, or the test skipped when it has none. */
const operation = (fixture: Fixture) =>
  fixture.store.tryAcquireAll === undefined
    ? fixture.skip("the store has no tryAcquireAll, which the contract leaves optional")
    : Effect.succeed(fixture.store.tryAcquireAll)

const unsupportedNote = "the store answers Unsupported: it can not write several items at once"

/**
 * The store's answer to a take of `requests`. An `Unsupported` answer must have changed none of the records and be
 * the answer again; then the test, which is about a store that takes them, is skipped.
 */
const takeAll = (fixture: Fixture, requests: ReadonlyArray<LockStore.AcquireRequest>) =>
  Effect.gen(function*() {
    const tryAcquireAll = yield* operation(fixture)
    const names = requests.map((request) => request.name)
    const before = yield* snapshot(fixture.store, names)
    const result = yield* tryAcquireAll({ requests })
    if (result._tag !== "Unsupported") return result
    expect(yield* snapshot(fixture.store, names)).toEqual(before)
    expectTag(yield* tryAcquireAll({ requests }), "Unsupported")
    expect(yield* snapshot(fixture.store, names)).toEqual(before)
    return yield* fixture.skip(unsupportedNote)
  })

/** A take that must be refused with every record as it was, so that no lock of it was written. */
const expectRefused = (fixture: Fixture, requests: ReadonlyArray<LockStore.AcquireRequest>) =>
  Effect.gen(function*() {
    const names = requests.map((request) => request.name)
    const before = yield* snapshot(fixture.store, names)
    expectTag(yield* takeAll(fixture, requests), "Refused")
    expect(yield* snapshot(fixture.store, names)).toEqual(before)
  })

/** Each record shows its request: name, owner, holder, data, a lease of its own from `now`, and a fence. */
const expectTaken = (
  records: ReadonlyArray<LockRecord.LockRecord>,
  requests: ReadonlyArray<LockStore.AcquireRequest>,
  now: number
) => {
  expect(records.map((record) => record.name)).toEqual(requests.map((request) => request.name))
  records.forEach((record, index) => {
    const request = requests[index]!
    expect([record.owner, record.holder, record.data]).toEqual([request.owner, request.holder, request.data])
    expect([record.leaseUntil, record.leaseMs, record.session]).toEqual([
      now + request.leaseMs,
      request.leaseMs,
      undefined
    ])
    expectFence(record.fence)
  })
}

/**
 * Registers the `tryAcquireAll` tests.
 *
 * @internal
 */
export const acquireAll = (test: Test): void => {
  describe("tryAcquireAll", () => {
    taking(test)
    refusing(test)
    badRequests(test)
  })
}

const taking = (test: Test): void => {
  test("takes free locks in one write: each record, in the order of the requests, shows its owner and a new fence", (fixture) =>
    Effect.gen(function*() {
      const { name, store } = fixture
      const released = yield* acquireNew(store, name("a-released"))
      expectTag(yield* releaseOf(store, released), "Released")
      // Not in name order, and one name never seen: the answer follows the requests.
      const requests = [
        requestFor(name("c-never")),
        requestFor(name("a-released")),
        requestFor(name("b-data"), { data: "with data" })
      ]
      const now = yield* Clock.currentTimeMillis
      const taken = expectTag(yield* takeAll(fixture, requests), "Acquired").records
      expectTaken(taken, requests, now)
      expect(taken[1]!.fence).toBeGreaterThan(released.fence)
      for (const record of taken) expect(fields(yield* inspectSome(store, record.name))).toEqual(fields(record))

      // Given back, and taken again: every fence above the one before.
      for (const record of taken) expectTag(yield* releaseOf(store, record), "Released")
      const again = requests.map((request) => ({ ...request, owner: makeOwner() }))
      const retaken = expectTag(yield* takeAll(fixture, again), "Acquired").records
      expectTaken(retaken, again, now)
      retaken.forEach((record, index) => expect(record.fence).toBeGreaterThan(taken[index]!.fence))
    }))

  test("takes a released lock, whose record has no holder, past its fence and version", (fixture) =>
    Effect.gen(function*() {
      const { name, store } = fixture
      const held = yield* acquireNew(store, name("released"))
      expectTag(yield* releaseOf(store, held), "Released")
      const free = yield* inspectSome(store, name("released"))
      expect(free.owner).toBeUndefined()
      const requests = [requestFor(name("released")), requestFor(name("other"))]
      const [record] = expectTag(yield* takeAll(fixture, requests), "Acquired").records
      expect(record!.owner).toBe(requests[0]!.owner)
      expect(record!.fence).toBeGreaterThan(free.fence)
      expect(record!.version).toBeGreaterThan(free.version)
      expect(fields(yield* inspectSome(store, name("released")))).toEqual(fields(record!))
    }))

  test("under a session, every record names it, with LeaseSession.heldUntil as its lease end and lease", (fixture) =>
    Effect.gen(function*() {
      const { name, store } = fixture
      const session = makeOwner()
      const requests = [requestFor(name("one"), { session }), requestFor(name("two"), { session })]
      const taken = expectTag(yield* takeAll(fixture, requests), "Acquired").records
      for (const record of taken) {
        expect([record.session, record.leaseUntil, record.leaseMs]).toEqual([
          session,
          LeaseSession.heldUntil,
          LeaseSession.heldUntil
        ])
        expect(LeaseSession.sessionOf(record)).toBe(session)
        expect(fields(yield* inspectSome(store, record.name))).toEqual(fields(record))
      }
    }))

  test("admits the reserver of a free lock, whose reserved request clears the reservation", (fixture) =>
    Effect.gen(function*() {
      const { name, store } = fixture
      const now = yield* Clock.currentTimeMillis
      const held = yield* acquireNew(store, name("reserved"))
      const waiter = makeOwner()
      const reservation = { name: name("reserved"), owner: waiter, reserveMs, graceMs: 0, waitingSince: now }
      expectTag(yield* store.reserve(reservation), "Reserved")
      expectTag(yield* releaseOf(store, held), "Released")
      const requests = [requestFor(name("free")), requestFor(name("reserved"), { owner: waiter, reserved: true })]
      const [, record] = expectTag(yield* takeAll(fixture, requests), "Acquired").records
      expect([record!.owner, record!.fence]).toEqual([waiter, held.fence + 1])
      expect([record!.reservedBy, record!.reservedUntil]).toEqual([undefined, 0])
    }))
}

const refusing = (test: Test): void => {
  test("a held lock refuses the whole take: Refused, and none of the others is written", (fixture) =>
    Effect.gen(function*() {
      const { name, store } = fixture
      const released = yield* acquireNew(store, name("released"))
      expectTag(yield* releaseOf(store, released), "Released")
      yield* acquireNew(store, name("held"))
      // The held lock last, so that a store that wrote the others first is caught with them written.
      yield* expectRefused(fixture, [
        requestFor(name("never")),
        requestFor(name("released")),
        requestFor(name("held"))
      ])
      expect(Option.isNone(yield* store.inspect(name("never")))).toBe(true)
    }))

  test("someone else's live reservation on a free lock refuses the take", (fixture) =>
    Effect.gen(function*() {
      const { name, store } = fixture
      const now = yield* Clock.currentTimeMillis
      const held = yield* acquireNew(store, name("reserved"))
      const reservation = { name: name("reserved"), owner: makeOwner(), reserveMs, graceMs: 0, waitingSince: now }
      expectTag(yield* store.reserve(reservation), "Reserved")
      expectTag(yield* releaseOf(store, held), "Released")
      yield* expectRefused(fixture, [requestFor(name("free")), requestFor(name("reserved"))])
    }))

  test("takes nothing over: not a lease long over, nor a holder under a session named as an orphan", (fixture) =>
    Effect.gen(function*() {
      const { name, store } = fixture
      const underSession = yield* acquireNew(store, name("orphan"), { session: makeOwner() })
      const expired = yield* acquireNew(store, name("expired"))
      yield* TestClock.adjust(leaseMs + maxClockSkewMs + 1)
      const orphan = { owner: underSession.owner!, fence: underSession.fence }
      yield* expectRefused(fixture, [
        requestFor(name("free")),
        requestFor(name("expired"), { takeover: absolute() }),
        requestFor(name("orphan"), { orphan })
      ])
      // The same single acquires take both over: the take refused what a takeover would have taken.
      expectTag(yield* attempt(store, name("orphan"), observed(), { orphan }), "Acquired")
      const taken = expectTag(yield* attempt(store, name("expired"), absolute()), "Acquired").record
      expect(taken.fence).toBeGreaterThan(expired.fence)
    }))
}

/** A take the store must refuse, before writing anything, with a non-retryable `LockStoreError`. */
const expectBadRequest = (fixture: Fixture, requests: ReadonlyArray<LockStore.AcquireRequest>, what: string) =>
  Effect.gen(function*() {
    const tryAcquireAll = yield* operation(fixture)
    const outcome = yield* Effect.match(tryAcquireAll({ requests }), {
      onFailure: (error) => [error._tag, error.operation, error.retryable, error.mayHaveApplied],
      onSuccess: (answer) => answer._tag
    })
    // A store that takes no set at all may say so before it looks at one.
    if (outcome === "Unsupported") return yield* fixture.skip(unsupportedNote)
    expect(outcome, what).toEqual(["LockStoreError", "tryAcquireAll", false, false])
  })

const badRequests = (test: Test): void => {
  test("refuses a bad request, writing nothing: no request, a name twice, more than maxTakenTogether", (fixture) =>
    Effect.gen(function*() {
      const { name, prefix, store } = fixture
      yield* expectBadRequest(fixture, [], "no request")
      yield* expectBadRequest(fixture, [requestFor(name("twice")), requestFor(name("twice"))], "a name twice")
      const tooMany = Array.from({ length: LockProtocol.maxTakenTogether + 1 }, (_, i) => requestFor(name(`${i}`)))
      yield* expectBadRequest(fixture, tooMany, `${tooMany.length} requests`)
      expect(yield* listAll(store, prefix)).toEqual([])
    }))

  test("refuses a request with a name the store can not key, or data it can not keep, writing nothing", (fixture) =>
    Effect.gen(function*() {
      const { name, prefix, store } = fixture
      const tooLong = name("x".repeat(store.maxNameBytes))
      expect(store.nameProblem(tooLong)).toBeTypeOf("string")
      yield* expectBadRequest(fixture, [requestFor(name("good")), requestFor(tooLong)], "a name too long")
      const data = "x".repeat(LockRecord.maxDataBytes + 1)
      yield* expectBadRequest(fixture, [requestFor(name("good")), requestFor(name("big"), { data })], "data too big")
      expect(yield* listAll(store, prefix)).toEqual([])
    }))
}
