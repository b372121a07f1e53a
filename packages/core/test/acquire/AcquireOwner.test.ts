import { describe, expect, it } from "vitest"
import * as AcquireOwner from "../../src/acquire/AcquireOwner.js"

describe("AcquireOwner", () => {
  it("has written nothing before its first write, and knows the outcome of a write that answered", () => {
    const owner = AcquireOwner.make("a1")
    expect(AcquireOwner.mayHaveWritten(owner)).toBe(false)
    AcquireOwner.sending(owner, 100)
    expect(AcquireOwner.mayHaveWritten(owner)).toBe(true)
    AcquireOwner.answered(owner)
    expect(AcquireOwner.mayHaveWritten(owner)).toBe(false)
    expect(AcquireOwner.leaseStart(owner, 250)).toBe(250)
  })

  it("dates a lease from the earliest write whose outcome stayed unknown, even after a later answer", () => {
    const owner = AcquireOwner.make("a1")
    AcquireOwner.sending(owner, 100)
    AcquireOwner.failed(owner, true)
    AcquireOwner.sending(owner, 200)
    AcquireOwner.failed(owner, undefined)
    AcquireOwner.sending(owner, 300)
    AcquireOwner.answered(owner)
    expect(owner.unknownSince).toBe(100)
    expect(AcquireOwner.leaseStart(owner, 300)).toBe(100)
    expect(AcquireOwner.mayHaveWritten(owner)).toBe(true)
  })

  it("counts nothing of a write the store says was not applied", () => {
    const owner = AcquireOwner.make("a1")
    AcquireOwner.sending(owner, 100)
    AcquireOwner.failed(owner, false)
    expect(owner.unknownSince).toBeUndefined()
    expect(AcquireOwner.mayHaveWritten(owner)).toBe(false)
    expect(AcquireOwner.leaseStart(owner, 400)).toBe(400)
  })

  it("ignores a failure with no write in flight", () => {
    const owner = AcquireOwner.make("a1")
    AcquireOwner.failed(owner, true)
    expect(owner.unknownSince).toBeUndefined()
  })

  it("forgets every write of the old owner id on renew", () => {
    const owner = AcquireOwner.make("a1")
    AcquireOwner.sending(owner, 100)
    AcquireOwner.failed(owner, true)
    AcquireOwner.sending(owner, 200)
    AcquireOwner.renew(owner, "a2")
    expect(owner).toEqual({ owner: "a2", inFlightSince: undefined, unknownSince: undefined })
    expect(AcquireOwner.mayHaveWritten(owner)).toBe(false)
  })
})
