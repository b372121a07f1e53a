import { describe, expect, it } from "vitest"
import * as Cursor from "../../src/dynamodb/Cursor.js"
import * as Keys from "../../src/dynamodb/Keys.js"
import * as Listing from "../../src/dynamodb/Listing.js"

const scanned = Keys.make({ partitionKey: "key", sortKey: undefined, prefix: "jobs" })
const sorted = Keys.make({ partitionKey: "pk", sortKey: "sk", prefix: "f" })

describe("Cursor", () => {
  it("round-trips a start key and refuses what no page returned", () => {
    const cursor = Cursor.encode({ key: { S: "jobs#a" } })
    expect(Cursor.decode(cursor, "key")).toEqual({ _tag: "Ok", value: { key: { S: "jobs#a" } } })
    expect(Cursor.decode("not base64!", "key")).toEqual({ _tag: "Invalid", message: "it is not base64url text" })
    expect(Cursor.decode(Cursor.encode({ key: { S: "" } }), "key")).toEqual({
      _tag: "Invalid",
      message: "its key value is 0 UTF-8 bytes; DynamoDB keys are 1 to 2048"
    })
    expect(Cursor.decode(Cursor.encode({ other: { S: "a" } }), "key")._tag).toBe("Invalid")
    expect(Cursor.malformedMessage("x".repeat(90), "why", "store")).toBe(
      `list cursor ${JSON.stringify("x".repeat(80) + "…")} is malformed: why; pass back a cursor exactly as a page ` +
        "of this store returned it, or none to start from the beginning"
    )
  })
})

describe("Listing", () => {
  it("checks the limit, and answers nothing for a prefix no name can have", () => {
    expect(Listing.pageRequest({ limit: 0 }, 100)._tag).toBe("Invalid")
    expect(Listing.pageRequest({ prefix: "x".repeat(101) }, 100)).toEqual({ _tag: "Ok", value: undefined })
    expect(Listing.pageRequest({ prefix: "\uDC00" }, 100)).toEqual({ _tag: "Ok", value: undefined })
    const page = Listing.pageRequest({ prefix: "a\uD83D" }, 100)
    if (page._tag !== "Ok" || page.value === undefined) throw new Error("expected a page")
    expect(page.value.prefix).toBe("a")
    expect(page.value.matches("a😀")).toBe(true)
    expect(page.value.matches("ab")).toBe(false)
    expect(page.value.limit).toBe(100)
  })

  it("starts a Query from the cursor, from the start, or not at all", () => {
    const page = (cursor: string | undefined) => ({ prefix: "b", matches: () => true, cursor, limit: 2 })
    expect(Listing.lockQueryStart(sorted, "sk", page("ba"))).toEqual({
      _tag: "From",
      startKey: { pk: { S: "f" }, sk: { S: "ba" } }
    })
    expect(Listing.lockQueryStart(sorted, "sk", page("a"))).toEqual({ _tag: "From", startKey: undefined })
    expect(Listing.lockQueryStart(sorted, "sk", page("c"))).toEqual({ _tag: "Done" })
    expect(Listing.lockQueryStart(sorted, "sk", page(""))._tag).toBe("Malformed")
    expect(Listing.familyQueryStart(sorted, "sk", "#s")).toEqual({
      _tag: "Ok",
      value: { pk: { S: "f" }, sk: { S: "#s" } }
    })
    expect(Listing.familyQueryStart(sorted, "sk", "")._tag).toBe("Invalid")
  })

  it("asks a Query for one more than the page holds, and cuts the page there", () => {
    const condition = Listing.queryCondition(sorted, "sk", "b")
    expect(condition.KeyConditionExpression).toBe("#pk = :family AND begins_with(#sk, :prefix)")
    expect(Listing.queryInput("t", condition, 2, 1, undefined)).toEqual({
      TableName: "t",
      ...condition,
      ConsistentRead: true,
      Limit: 2
    })
    expect(Listing.queryInput("t", condition, Infinity, 0, undefined).Limit).toBe(Cursor.maxRequestLimit)
    expect(Listing.fullQueryPage(["a", "b"], 2, (name) => name)).toBeUndefined()
    expect(Listing.fullQueryPage(["a", "b", "c"], 2, (name) => name)).toEqual({ items: ["a", "b"], cursor: "b" })
  })

  it("filters a Scan on the family's keys, and ends a page at a last evaluated key", () => {
    expect(Listing.lockScanFilter(scanned, "a")).toMatchObject({
      ExpressionAttributeValues: { ":prefix": { S: "jobs#a" } }
    })
    expect(Listing.lockScanFilter(Keys.make({ partitionKey: "key", sortKey: undefined, prefix: "" }), "")).toEqual({})
    expect(Listing.familyScanFilter(scanned)).toMatchObject({
      ExpressionAttributeValues: { ":locks": { S: "jobs#" }, ":semaphores": { S: "#jobs#" } }
    })
    expect(Listing.scanInput("t", {}, 5, 3, { key: { S: "k" } })).toEqual({
      TableName: "t",
      ConsistentRead: true,
      Limit: 2,
      ExclusiveStartKey: { key: { S: "k" } }
    })
    expect(Listing.scanPageEnd(undefined, 0, 5)).toEqual({ cursor: undefined })
    expect(Listing.scanPageEnd({ key: { S: "k" } }, 4, 5)).toBeUndefined()
    expect(Listing.scanPageEnd({ key: { S: "k" } }, 5, 5)).toEqual({ cursor: Cursor.encode({ key: { S: "k" } }) })
    expect(Listing.scanStart(scanned, "!", "table")).toMatchObject({
      _tag: "Invalid",
      message: expect.stringContaining("a page of this table returned it")
    })
  })
})
