/**
 * The conformance tests of `tryAcquire`: new names, conflicts and independent names; takeovers are in `takeover.ts`.
 *
 * @internal
 */
import { describe, expect } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { TestClock } from "../effectLine.js"
import { absolute, leaseMs, makeOwner, type Test } from "./fixture.js"
import { acquireNew, attempt, expectFence, expectTag, fields, inspectSome, releaseOf } from "./helpers.js"
import { absoluteTakeover, observedTakeover } from "./takeover.js"

/**
 * Registers the `tryAcquire` tests.
 *
 * @internal
 */
export const tryAcquire = (test: Test): void => {
  describe("tryAcquire", () => {
    acquiring(test)
    absoluteTakeover(test)
    observedTakeover(test)
    independence(test)
  })
}

const acquiring = (test: Test): void => {
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
}

const independence = (test: Test): void =>
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
