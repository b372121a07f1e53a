import { describe, expect, it } from "vitest"
import * as LockOptions from "../../src/options/LockOptions.js"
import * as SemaphoreOptions from "../../src/options/SemaphoreOptions.js"
import * as SemaphoreRecord from "../../src/record/SemaphoreRecord.js"
import type * as SemaphoreProtocol from "../../src/store/SemaphoreProtocol.js"
import { readMillis } from "./readMillis.js"

const lease = (input: LockOptions.Input<number>): LockOptions.Resolved => {
  const checked = LockOptions.resolve(input, "h", readMillis)
  if (checked._tag === "Invalid") throw new Error(checked.message)
  return checked.value
}

describe("SemaphoreOptions.checkPermits", () => {
  it("takes one permit unless told otherwise", () => {
    expect(SemaphoreOptions.checkPermits({ limit: 4 }, undefined)).toEqual({
      _tag: "Ok",
      value: { limit: 4, permits: SemaphoreOptions.defaultPermits }
    })
    expect(SemaphoreOptions.checkPermits({ limit: 4, permits: 4 }, undefined)).toEqual({
      _tag: "Ok",
      value: { limit: 4, permits: 4 }
    })
  })

  it("asks for options with a limit when there are none", () => {
    expect(SemaphoreOptions.checkPermits(undefined as unknown as SemaphoreOptions.Input, undefined)).toEqual({
      _tag: "Invalid",
      option: "limit",
      message: "a semaphore needs options with its limit, e.g. { limit: 4 }; got undefined"
    })
  })

  it("refuses options that are not a record, null included, as options that must be one", () => {
    for (const [input, shown] of [[null, "null"], [[4], "an array"], [4, "4"]] as const) {
      expect(SemaphoreOptions.checkPermits(input as unknown as SemaphoreOptions.Input, undefined)).toEqual({
        _tag: "Invalid",
        option: "options",
        message: `a semaphore's options must be a record of named options; got ${shown}`
      })
    }
  })

  it("blames the limit for a bad limit, and the permits for permits over a good one", () => {
    expect(SemaphoreOptions.checkPermits({ limit: SemaphoreRecord.maxLimit + 1, permits: 99 }, undefined)).toEqual({
      _tag: "Invalid",
      option: "limit",
      message: `semaphore limit ${
        SemaphoreRecord.maxLimit + 1
      } is not a whole number from 1 to ${SemaphoreRecord.maxLimit}`
    })
    expect(SemaphoreOptions.checkPermits({ limit: 2, permits: 3 }, undefined)).toEqual({
      _tag: "Invalid",
      option: "permits",
      message: "permits 3 is not a whole number from 1 to the limit (2)"
    })
  })

  it("checks the call's data against a holder's budget, or else the app-wide default's, saying so", () => {
    const tooMuch = "x".repeat(SemaphoreRecord.maxDataBytes + 1)
    const own = SemaphoreOptions.checkPermits({ limit: 1, data: tooMuch }, undefined)
    expect(own).toMatchObject({ _tag: "Invalid", option: "data" })
    expect(own._tag === "Invalid" && own.message).toMatch(/^data is \d+ UTF-8 bytes, over a semaphore holder's limit/)
    const inherited = SemaphoreOptions.checkPermits({ limit: 1 }, tooMuch)
    expect(inherited._tag === "Invalid" && inherited.message).toMatch(
      /^the app-wide default data \(from Lock\.layerDefaults\) does not fit a semaphore: data is/
    )
    // The call's own data replaces the default's, which is then not checked.
    expect(SemaphoreOptions.checkPermits({ limit: 1, data: "ok" }, tooMuch)._tag).toBe("Ok")
  })
})

describe("SemaphoreOptions.withLease", () => {
  it("asks the store about the lease with the takeover the options make, and keeps what it takes", () => {
    const asked: Array<unknown> = []
    const judge = (request: { readonly leaseMs: number; readonly takeover: SemaphoreProtocol.PermitTakeover }) => {
      asked.push(request)
      return undefined
    }
    const resolvedLease = lease({ lease: 2000, maxClockSkew: 50 })
    expect(SemaphoreOptions.withLease({ limit: 3, permits: 2 }, resolvedLease, judge)).toEqual({
      _tag: "Ok",
      value: { lease: resolvedLease, limit: 3, permits: 2 }
    })
    expect(asked).toEqual([{ leaseMs: 2000, takeover: { _tag: "Absolute", maxClockSkewMs: 50 } }])
  })

  it("refuses the lease with the store's own words", () => {
    const checked = SemaphoreOptions.withLease(
      { limit: 1, permits: 1 },
      lease({ takeover: "observed" }),
      (request) => request.takeover._tag === "Observed" ? "no observed takeover here" : undefined
    )
    expect(checked).toEqual({ _tag: "Invalid", option: "lease", message: "no observed takeover here" })
  })
})
