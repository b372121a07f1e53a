import { describe, expect, it } from "vitest"
import * as AcquireStep from "../../src/acquire/AcquireStep.js"

describe("AcquireStep", () => {
  describe("afterFailure", () => {
    it("retries a retryable failure after a poll while the wait lasts", () => {
      expect(AcquireStep.afterFailure(true, 100, 200)).toEqual({ _tag: "Sleep", sleepMs: undefined })
      expect(AcquireStep.afterFailure(true, 100, Infinity)).toEqual({ _tag: "Sleep", sleepMs: undefined })
    })

    it("fails with a failure that is not retryable, or once the wait is over", () => {
      expect(AcquireStep.afterFailure(false, 100, Infinity)).toEqual({ _tag: "Fail" })
      expect(AcquireStep.afterFailure(true, 200, 200)).toEqual({ _tag: "Fail" })
    })
  })

  describe("afterTooLate", () => {
    it("gives the write back, then retries after a poll while the wait lasts", () => {
      expect(AcquireStep.afterTooLate(2_700, 3_700, 5_000))
        .toEqual({ _tag: "GiveBack", then: { _tag: "Sleep", sleepMs: undefined } })
    })

    it("gives the write back, then gives up once the wait is over, saying how late the answer came", () => {
      expect(AcquireStep.afterTooLate(2_700, 3_700, 3_700))
        .toEqual({ _tag: "GiveBack", then: { _tag: "GiveUp", answeredAfterMs: 2_700 } })
    })
  })
})
