import { describe, expect, it } from "vitest"
import * as Cursor from "../../src/dynamodb/Cursor.js"
import * as Keys from "../../src/dynamodb/Keys.js"
import * as Listing from "../../src/dynamodb/Listing.js"
import * as Pager from "../../src/dynamodb/Pager.js"

const sorted = Keys.make({ partitionKey: "pk", sortKey: "sk", prefix: "f" })
const condition = Listing.queryCondition(sorted, "sk", "")
const key = (sk: string) => ({ pk: { S: "f" }, sk: { S: sk } })

describe("Pager.query", () => {
  it("asks for one more than the page still misses, from where the last answer stopped", () => {
    const pager = Pager.query<string>("t", condition, 3, key("a"), (name) => name)
    expect(pager.input()).toMatchObject({ Limit: 4, ExclusiveStartKey: key("a") })
    pager.add("b")
    expect(pager.next(key("c"))).toBeUndefined()
    expect(pager.input()).toMatchObject({ Limit: 3, ExclusiveStartKey: key("c") })
  })

  it("cuts a page that holds more than its limit, with the cursor of its last item", () => {
    const pager = Pager.query<string>("t", condition, 2, undefined, (name) => `cursor of ${name}`)
    expect(pager.input()).not.toHaveProperty("ExclusiveStartKey")
    for (const name of ["a", "b", "c"]) pager.add(name)
    expect(pager.next(key("c"))).toEqual({ items: ["a", "b"], cursor: "cursor of b" })
  })

  it("ends without a cursor when the partition is read to its end, or nothing came back", () => {
    const read = Pager.query<string>("t", condition, 2, undefined, (name) => name)
    read.add("a")
    read.add("b")
    expect(read.next(undefined)).toEqual({ items: ["a", "b"], cursor: undefined })
    const unanswered = Pager.query<string>("t", condition, 2, undefined, (name) => name)
    expect(unanswered.end()).toEqual({ items: [], cursor: undefined })
  })
})

describe("Pager.scan", () => {
  const filter = Listing.lockScanFilter(Keys.make({ partitionKey: "key", sortKey: undefined, prefix: "jobs" }), "")

  it("asks for the items still missing, and scans on while the page is short", () => {
    const pager = Pager.scan<string, object>("t", filter, 3, { key: { S: "jobs#a" } })
    expect(pager.input()).toMatchObject({ Limit: 3, ExclusiveStartKey: { key: { S: "jobs#a" } } })
    pager.add("b")
    expect(pager.next({ key: { S: "jobs#b" } })).toBeUndefined()
    expect(pager.input()).toMatchObject({ Limit: 2, ExclusiveStartKey: { key: { S: "jobs#b" } } })
  })

  it("ends a full page at the last evaluated key, and the table's end without a cursor", () => {
    const full = Pager.scan<string, object>("t", filter, 2, undefined)
    full.add("a")
    full.add("b")
    expect(full.next({ key: { S: "jobs#b" } })).toEqual({
      items: ["a", "b"],
      cursor: Cursor.encode({ key: { S: "jobs#b" } })
    })
    const short = Pager.scan<string, object>("t", filter, 2, undefined)
    short.add("a")
    expect(short.next(undefined)).toEqual({ items: ["a"], cursor: undefined })
    expect(Pager.scan<string, object>("t", filter, 2, undefined).end()).toEqual({ items: [], cursor: undefined })
  })
})
