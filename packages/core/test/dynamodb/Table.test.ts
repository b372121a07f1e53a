import { describe, expect, it } from "vitest"
import * as KeySchema from "../../src/dynamodb/KeySchema.js"
import * as StoreOptions from "../../src/dynamodb/StoreOptions.js"
import * as TableDescription from "../../src/dynamodb/TableDescription.js"

const describeValue = (value: unknown) => typeof value === "string" ? JSON.stringify(value) : String(value)
const millis = (value: number | undefined) => ({ millis: value, input: value })

const options: StoreOptions.StoreOptions = {
  tableName: "locks",
  partitionKey: undefined,
  sortKey: undefined,
  prefix: undefined,
  clockSkewGuard: undefined,
  maxRetries: 3,
  requestTimeout: millis(3_000),
  retryBaseDelay: millis(50),
  ttlRetention: millis(60_000)
}

describe("StoreOptions", () => {
  it("resolves defaults: the key attribute, and a family in sort-key mode", () => {
    const resolved = StoreOptions.resolve(options, describeValue)
    expect(resolved).toMatchObject({ _tag: "Resolved", expected: { partitionKey: "key", sortKey: undefined } })
    const sorted = StoreOptions.resolve({ ...options, sortKey: "name" }, describeValue)
    expect(sorted._tag === "Resolved" && sorted.layout.prefix).toBe(StoreOptions.defaultFamily)
  })

  it("names the first wrong option and what it allows", () => {
    const first = (patch: Partial<StoreOptions.StoreOptions>) => {
      const resolved = StoreOptions.resolve({ ...options, ...patch }, describeValue)
      return resolved._tag === "ConfigProblem" ? resolved : undefined
    }
    expect(first({ tableName: "x", maxRetries: -1 })).toMatchObject({ option: "tableName" })
    expect(first({ partitionKey: "owner" })?.message).toContain("one of the lock and semaphore items' own attributes")
    expect(first({ sortKey: "key" })?.message).toBe("sortKey must differ from partitionKey (\"key\")")
    expect(first({ clockSkewGuard: "yes" })?.message).toBe("clockSkewGuard must be true or false; got \"yes\"")
    expect(first({ sortKey: "name", prefix: "" })?.message).toContain("must not be empty")
    expect(first({ prefix: "#".repeat(1024) })?.message).toContain("2048 escaped")
    expect(first({ maxRetries: 1.5 })?.message).toBe("maxRetries must be a whole number, 0 or more; got 1.5")
    expect(first({ requestTimeout: millis(0.5) })).toMatchObject({
      option: "requestTimeout",
      message: "requestTimeout must be a finite duration over 0 in whole milliseconds, such as \"3 seconds\" or " +
        "3000 (ms); got 0.5"
    })
    expect(first({ ttlRetention: millis(undefined) })).toMatchObject({ option: "ttlRetention" })
    expect(StoreOptions.duration("x", millis(0), true, describeValue)).toBe(0)
  })
})

const table: TableDescription.Table = {
  TableName: "locks",
  TableStatus: "ACTIVE",
  KeySchema: [{ AttributeName: "key", KeyType: "HASH" }],
  AttributeDefinitions: [{ AttributeName: "key", AttributeType: "S" }]
}

describe("TableDescription", () => {
  it("describes and matches key schemas", () => {
    expect(KeySchema.describeExpected({ partitionKey: "pk", sortKey: "sk" })).toBe("{pk: S (hash), sk: S (range)}")
    expect(KeySchema.definition({ partitionKey: "pk", sortKey: undefined })).toEqual({
      KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
      AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }]
    })
    expect(TableDescription.keySchemaProblem(table, { partitionKey: "key", sortKey: undefined })).toBeUndefined()
    expect(TableDescription.keySchemaProblem(table, { partitionKey: "key", sortKey: "sk" })?.message).toBe(
      "table \"locks\" has key schema {key: S}, but the store expects {key: S (hash), sk: S (range)}: use another " +
        "table, or set the store's partitionKey/sortKey to the table's key attributes"
    )
  })

  it("lists what keeps a store from a table", () => {
    const expected = { partitionKey: "key", sortKey: undefined }
    expect(TableDescription.problems("locks", table, expected, { TimeToLiveStatus: "ENABLED", AttributeName: "ttl" }))
      .toEqual([])
    expect(
      TableDescription.problems("locks", { ...table, TableStatus: "CREATING" }, expected, {
        TimeToLiveStatus: "ENABLING",
        AttributeName: "expires"
      }).map((problem) => problem._tag)
    ).toEqual(["TableNotActive", "TtlOnOtherAttribute"])
    expect(TableDescription.problems("locks", table, expected, undefined).map((problem) => problem._tag)).toEqual([
      "TtlDisabled"
    ])
    expect(TableDescription.missing("locks")._tag).toBe("TableMissing")
    expect(TableDescription.ttlOn({ TimeToLiveStatus: "DISABLED" })).toBeUndefined()
    expect(TableDescription.isActive({})).toBe(true)
  })

  it("says how a store could use a table's keys", () => {
    expect(TableDescription.keysOf(table)).toEqual({ _tag: "Usable", partitionKey: "key", sortKey: undefined })
    expect(
      TableDescription.keysOf({
        KeySchema: [{ AttributeName: "owner", KeyType: "HASH" }],
        AttributeDefinitions: [{ AttributeName: "owner", AttributeType: "S" }]
      })
    ).toEqual({ _tag: "Unusable", keySchema: "{owner: S}" })
    expect(
      TableDescription.keysOf({
        KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
        AttributeDefinitions: [{ AttributeName: "id", AttributeType: "N" }]
      })
    ).toEqual({ _tag: "Unusable", keySchema: "{id: N}" })
  })
})

describe("a server without an operation", () => {
  it("answers with one of two names", () => {
    expect(TableDescription.isUnknownOperation("UnknownOperationException")).toBe(true)
    expect(TableDescription.isUnknownOperation("UnknownOperation")).toBe(true)
    expect(TableDescription.isUnknownOperation("ValidationException")).toBe(false)
    expect(TableDescription.isUnknownOperation(undefined)).toBe(false)
  })
})
