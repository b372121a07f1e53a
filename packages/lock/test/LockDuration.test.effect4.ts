import { describe, expect, it } from "@effect/vitest"
import * as DurationInput from "@leasehold/core/options/DurationInput"
import { Lock, LockDuration } from "@leasehold/lock"
import { Duration, Effect, Result } from "effect"

// What Effect 4's durations add to the inputs every option is checked on.
describe("LockDuration on Effect 4", () => {
  it("reads Effect 4's duration objects as their milliseconds", () => {
    expect(LockDuration.toMillis({ seconds: 30 })).toEqual(Result.succeed(30_000))
    expect(LockDuration.toMillis({ minutes: 1, milliseconds: 500 })).toEqual(Result.succeed(60_500))
  })

  it("refuses a negative Duration as negative, which Effect 4 keeps as it is", () => {
    expect(LockDuration.toMillis(Duration.millis(-5))).toEqual(Result.fail("is negative"))
    expect(LockDuration.toMillis({ seconds: -1 })).toEqual(Result.fail("is negative"))
  })

  it("refuses a zero Duration that may be a NaN one, and takes Duration.zero", () => {
    expect(LockDuration.toMillis(Duration.millis(Number.NaN))).toEqual(Result.fail(DurationInput.ambiguousNaNZero))
    expect(LockDuration.toMillis(Duration.zero)).toEqual(Result.succeed(0))
    expect(LockDuration.toMillis(0)).toEqual(Result.succeed(0))
  })

  it.effect("an option given as a duration object is taken", () =>
    Effect.gen(function*() {
      yield* Lock.validateOptions({ lease: { seconds: 30 }, heartbeat: { seconds: 5 }, wait: { minutes: 1 } })
      const error = yield* Effect.flip(Lock.validateOptions({ lease: { seconds: -30 } }))
      expect(error).toMatchObject({ _tag: "LockConfigError", option: "lease" })
    }))
})
