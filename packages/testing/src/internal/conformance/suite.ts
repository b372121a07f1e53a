/**
 * The conformance suite itself: one `describe` per store operation (or concern), in a fixed order, each test on a
 * fresh store and a private name prefix.
 *
 * @internal
 */
import { describe, expect, it } from "@effect/vitest"
import type * as LockRecord from "@leasehold/lock/LockRecord"
import * as LockStore from "@leasehold/lock/LockStore"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import type * as LockStoreConformance from "../../LockStoreConformance.js"
import * as EffectLine from "../effectLine.js"
import { acquireAll } from "./acquireAll.js"
import { data } from "./data.js"
import { fence, version } from "./fencing.js"
import { makePrefix, Skipped, type Test } from "./fixture.js"
import { forceRelease } from "./forceRelease.js"
import { fields } from "./helpers.js"
import { inspect } from "./inspect.js"
import { lateWrites } from "./lateWrites.js"
import { list } from "./list.js"
import { names } from "./names.js"
import { release } from "./release.js"
import { renew } from "./renew.js"
import { reserve } from "./reserve.js"
import { semaphore } from "./semaphore.js"
import { sessions } from "./sessions.js"
import { tryAcquire } from "./tryAcquire.js"

/** Every store reports the current holder unless the caller says it may not. */
const defaultFeatures: LockStoreConformance.Features = { reportsCurrent: true }

/** @internal */
export const suite = (
  storeName: string,
  makeLayer: () => Layer.Layer<LockStore.LockStore, unknown>,
  options: LockStoreConformance.Options = {}
): void => {
  const features: LockStoreConformance.Features = { ...defaultFeatures, ...options.features }
  // Read once: the tests replay the same realistic epoch, and TestClock moves it from there.
  const epoch = Date.now()

  const checkCurrent =
    (reportsCurrent: boolean) =>
    (actual: LockRecord.LockRecord | undefined, expected: LockRecord.LockRecord | undefined) => {
      if (expected === undefined || expected.owner === undefined) {
        // A free lock has no holder to report, whatever the store knows.
        expect(actual).toBeUndefined()
      } else if (actual !== undefined || reportsCurrent) {
        expect(actual === undefined ? undefined : fields(actual)).toEqual(fields(expected))
      }
    }
  const expectCurrent = checkCurrent(features.reportsCurrent)
  const expectLostTo = checkCurrent(true)

  // Tests with a live server answer in milliseconds; vitest's default timeout is plenty unless the caller says.
  const test: Test = (title, body) =>
    it.effect(
      title,
      (context) =>
        Effect.gen(function*() {
          yield* EffectLine.TestClock.setTime(epoch)
          const store = yield* LockStore.LockStore
          const prefix = makePrefix()
          const skip = (note: string) =>
            Effect.suspend(() => {
              try {
                context.skip(note)
              } catch {
                // Vitest has marked the test skipped; its throw would reach Effect as a defect, which Effect 4 logs.
              }
              return Effect.fail(new Skipped())
            })
          yield* body({ store, prefix, name: (label) => prefix + label, expectCurrent, expectLostTo, skip })
        }).pipe(
          Effect.provide(makeLayer()),
          EffectLine.catch((error) => error instanceof Skipped ? Effect.void : Effect.fail(error))
        ),
      options.timeout
    )

  describe(`LockStore conformance: ${storeName}`, () => {
    tryAcquire(test)
    acquireAll(test)
    renew(test)
    release(test)
    reserve(test)
    version(test)
    fence(test)
    inspect(test)
    list(test)
    forceRelease(test)
    data(test)
    names(test)
    sessions(test)
    semaphore(test)
    lateWrites(test)
  })
}
