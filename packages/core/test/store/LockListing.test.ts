import { describe, expect, it } from "vitest"
import type { LockRecord } from "../../src/record/LockRecord.js"
import * as LockListing from "../../src/store/LockListing.js"

const recordOf = (name: string): LockRecord => ({
  name,
  owner: undefined,
  holder: undefined,
  leaseUntil: 0,
  leaseMs: 1_000,
  fence: 1,
  version: 1,
  sequence: 0,
  acquiredAt: undefined,
  data: undefined,
  reservedBy: undefined,
  reservedUntil: 0,
  reservedSince: 0,
  reservedFrom: 0
})

// Kept in an order that is not the names' order, as a map fills.
const records = new Map(["jobs/b", "jobs/a", "other", "jobs/c", "jobs/Z"].map((name) => [name, recordOf(name)]))

const namesOf = (page: { readonly records: ReadonlyArray<LockRecord> }) => page.records.map((record) => record.name)

describe("LockListing.pageSize", () => {
  it("is the default without a limit, and the limit when it is a page size", () => {
    expect(LockListing.pageSize({})).toEqual({ _tag: "Ok", value: 100 })
    expect(LockListing.pageSize({ limit: 1 })).toEqual({ _tag: "Ok", value: 1 })
    expect(LockListing.pageSize({ limit: Infinity })).toEqual({ _tag: "Ok", value: Infinity })
  })

  it("refuses what is not a page size with the contract's message", () => {
    expect(LockListing.pageSize({ limit: 0 })).toEqual({
      _tag: "Invalid",
      message: "list limit 0 is not a page size: use a whole number of 1 or more (Infinity for every record in one " +
        "page), or none for the default of 100"
    })
    expect(LockListing.pageSize({ limit: 2.5 })._tag).toBe("Invalid")
    expect(LockListing.pageSize({ limit: NaN })._tag).toBe("Invalid")
  })
})

describe("LockListing.page", () => {
  it("lists the names under the prefix in the order of their code units", () => {
    const page = LockListing.page(records, { prefix: "jobs/" }, Infinity)
    expect(namesOf(page)).toEqual(["jobs/Z", "jobs/a", "jobs/b", "jobs/c"])
    expect(page.cursor).toBeUndefined()
  })

  it("gives a cursor only when more names follow, and each name once along the cursors", () => {
    const first = LockListing.page(records, { prefix: "jobs/" }, 3)
    expect(namesOf(first)).toEqual(["jobs/Z", "jobs/a", "jobs/b"])
    expect(first.cursor).toBe("jobs/b")
    const second = LockListing.page(records, { prefix: "jobs/", cursor: first.cursor }, 3)
    expect(namesOf(second)).toEqual(["jobs/c"])
    expect(second.cursor).toBeUndefined()
  })

  it("gives no cursor for a page that ends exactly at the last name", () => {
    const page = LockListing.page(records, { prefix: "jobs/" }, 4)
    expect(page.records).toHaveLength(4)
    expect(page.cursor).toBeUndefined()
  })

  it("starts after a cursor that names no record, and lists everything without a prefix", () => {
    expect(namesOf(LockListing.page(records, { cursor: "jobs/aa" }, Infinity))).toEqual(["jobs/b", "jobs/c", "other"])
    expect(LockListing.page(records, {}, Infinity).records).toHaveLength(5)
    expect(LockListing.page(new Map(), {}, 10)).toEqual({ records: [], cursor: undefined })
  })
})
