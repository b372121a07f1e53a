import { describe, expect, it } from "vitest"
import * as SemaphoreRecord from "../../src/record/SemaphoreRecord.js"
import { permitHolder, semaphoreRecord } from "./fixtures.js"

describe("SemaphoreRecord: holders", () => {
  const a = permitHolder({ owner: "a", permits: 2, fence: 4 })
  const b = permitHolder({ owner: "b", permits: 1, fence: 5 })
  const record = semaphoreRecord(4, [a, b])

  it("finds a holder by owner, and what is left of the limit", () => {
    expect(SemaphoreRecord.holderOf(record, "b")).toBe(b)
    expect(SemaphoreRecord.holderOf(record, "c")).toBeUndefined()
    expect(SemaphoreRecord.available(record)).toBe(1)
  })

  it("counts a holder over once its lease and the skew bound are strictly past", () => {
    expect(SemaphoreRecord.isExpiredAt(a, a.leaseUntil + 100, 100)).toBe(false)
    expect(SemaphoreRecord.isExpiredAt(a, a.leaseUntil + 101, 100)).toBe(true)
  })

  it("shows one holder's permits as a lock record without a reservation", () => {
    const data = permitHolder({ owner: "d", data: "payload", sequence: 7 })
    expect(SemaphoreRecord.permitRecord("pool", data)).toEqual({
      name: "pool",
      owner: "d",
      holder: data.holder,
      leaseUntil: data.leaseUntil,
      leaseMs: data.leaseMs,
      fence: data.fence,
      version: data.version,
      sequence: 7,
      acquiredAt: data.acquiredAt,
      data: "payload",
      reservedBy: undefined,
      reservedUntil: 0,
      reservedSince: 0,
      reservedFrom: 0
    })
  })
})

describe("SemaphoreRecord.permitsProblem", () => {
  it("takes a limit from 1 to maxLimit and permits from 1 to the limit", () => {
    expect(SemaphoreRecord.permitsProblem(1, 1)).toBeUndefined()
    expect(SemaphoreRecord.permitsProblem(SemaphoreRecord.maxLimit, SemaphoreRecord.maxLimit)).toBeUndefined()
  })

  it("blames the limit before the permits", () => {
    for (const limit of [0, SemaphoreRecord.maxLimit + 1, 1.5, "4", Number.NaN]) {
      expect(SemaphoreRecord.permitsProblem(limit, 0)).toBe(
        `semaphore limit ${String(limit)} is not a whole number from 1 to ${SemaphoreRecord.maxLimit}`
      )
    }
    for (const permits of [0, 5, 1.5, undefined]) {
      expect(SemaphoreRecord.permitsProblem(4, permits)).toBe(
        `permits ${String(permits)} is not a whole number from 1 to the limit (4)`
      )
    }
  })
})

describe("SemaphoreRecord.dataProblem", () => {
  it("takes a holder's data up to its own, smaller budget", () => {
    expect(SemaphoreRecord.dataProblem(undefined)).toBeUndefined()
    expect(SemaphoreRecord.dataProblem("x".repeat(SemaphoreRecord.maxDataBytes))).toBeUndefined()
    expect(SemaphoreRecord.dataProblem("x".repeat(SemaphoreRecord.maxDataBytes + 1))).toBe(
      `data is ${SemaphoreRecord.maxDataBytes + 1} UTF-8 bytes, over a semaphore holder's limit of ` +
        `${SemaphoreRecord.maxDataBytes} (one item keeps the data of every holder): store a reference to the payload ` +
        `instead`
    )
  })

  it("refuses data that is not a well-formed string", () => {
    expect(SemaphoreRecord.dataProblem(1)).toBe("data must be a string (encode it first, e.g. with Schema); got number")
    expect(SemaphoreRecord.dataProblem("\uDFFF")).toBe("data is not well-formed Unicode (it holds a lone surrogate)")
  })
})
