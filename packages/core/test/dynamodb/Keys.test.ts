import { describe, expect, it } from "vitest"
import * as Keys from "../../src/dynamodb/Keys.js"
import * as SemaphoreKeys from "../../src/dynamodb/SemaphoreKeys.js"

const unprefixed = Keys.make({ partitionKey: "key", sortKey: undefined, prefix: "" })
const prefixed = Keys.make({ partitionKey: "key", sortKey: undefined, prefix: "jo#bs" })
const sorted = Keys.make({ partitionKey: "pk", sortKey: "sk", prefix: "family" })

const keyOf = (layout: Keys.KeyLayout, name: string) => {
  const key = layout.keyOf(name)
  if (key._tag !== "Ok") throw new Error(key.message)
  return key.value
}

describe("Keys", () => {
  it("escapes # and \\ and reads a key back from the left", () => {
    expect(Keys.escape("a#b\\c")).toBe("a\\#b\\\\c")
    expect(Keys.parse("a\\#b#c#d")).toEqual({ prefix: "a#b", name: "c#d" })
    expect(Keys.parse("plain")).toEqual({ prefix: "", name: "plain" })
    expect(Keys.parse("#x")).toBeUndefined()
    expect(Keys.parse("a\\x")).toBeUndefined()
  })

  it("keys a name in each layout, and reads the name back", () => {
    expect(keyOf(unprefixed, "a#b")).toEqual({ key: { S: "a\\#b" } })
    expect(keyOf(prefixed, "a#b")).toEqual({ key: { S: "jo\\#bs#a#b" } })
    expect(keyOf(sorted, "a#b")).toEqual({ pk: { S: "family" }, sk: { S: "a#b" } })
    for (const layout of [unprefixed, prefixed, sorted]) {
      expect(layout.nameOf(keyOf(layout, "a#b\\c"))).toBe("a#b\\c")
    }
    // Another family's key is none of this layout's names.
    expect(unprefixed.nameOf(keyOf(prefixed, "x"))).toBeUndefined()
    expect(prefixed.nameOf(keyOf(unprefixed, "x"))).toBeUndefined()
    expect(sorted.nameOf({ pk: { S: "other" }, sk: { S: "x" } })).toBeUndefined()
  })

  it("bounds names by the key they take, and says why in words", () => {
    expect(unprefixed.maxNameBytes).toBe(Keys.partitionKeyMaxBytes)
    expect(sorted.maxNameBytes).toBe(Keys.sortKeyMaxBytes)
    expect(prefixed.maxNameBytes).toBe(Keys.partitionKeyMaxBytes - "jo\\#bs#".length)
    expect(sorted.nameProblem("x".repeat(1024))).toBeUndefined()
    expect(sorted.nameProblem("x".repeat(1025))).toContain("is 1025 UTF-8 bytes, over this store's limit of 1024")
    expect(unprefixed.nameProblem("#".repeat(1024))).toBeUndefined()
    expect(unprefixed.nameProblem("#".repeat(1025))).toContain("takes 2050 UTF-8 bytes as a key")
    expect(unprefixed.nameProblem("#".repeat(1025))).toContain("the name itself is 1025 UTF-8 bytes")
    expect(prefixed.nameProblem("x".repeat(prefixed.maxNameBytes + 1))).toContain(`the prefix "jo#bs" takes 7`)
    expect(unprefixed.nameProblem("")).toContain("must not be empty")
    expect(unprefixed.nameProblem("a\uD800")).toContain("not well-formed UTF-16")
    const refused = sorted.keyOf("")
    expect(refused._tag).toBe("Invalid")
  })

  it("quotes long names by whole code points", () => {
    expect(Keys.quote("😀".repeat(70))).toBe(JSON.stringify("😀".repeat(64) + "…"))
    expect(Keys.quote("short")).toBe("\"short\"")
  })

  it("says where keys of names with a prefix start", () => {
    expect(unprefixed.keyPrefixOf("a#")).toBe("a\\#")
    expect(prefixed.keyPrefixOf("a")).toBe("jo\\#bs#a")
    expect(sorted.keyPrefixOf("a#")).toBe("a#")
  })
})

describe("SemaphoreKeys", () => {
  it("puts # in front of the value that carries the name, apart from every lock key", () => {
    const keys = SemaphoreKeys.make(unprefixed)
    const key = keys.keyOf("a#b")
    expect(key).toEqual({ _tag: "Ok", value: { key: { S: "#a\\#b" } } })
    expect(unprefixed.nameOf({ key: { S: "#a\\#b" } })).toBeUndefined()
    expect(keys.nameOf({ key: { S: "#a\\#b" } })).toBe("a#b")
    expect(SemaphoreKeys.make(prefixed).keyOf("s")).toEqual({ _tag: "Ok", value: { key: { S: "#jo\\#bs#s" } } })
    const sortedKeys = SemaphoreKeys.make(sorted)
    expect(sortedKeys.keyOf("s")).toEqual({ _tag: "Ok", value: { pk: { S: "family" }, sk: { S: "#s" } } })
    expect(sortedKeys.nameOf({ pk: { S: "family" }, sk: { S: "#" } })).toBeUndefined()
  })

  it("leaves a semaphore name the lock budget less the marker", () => {
    const keys = SemaphoreKeys.make(sorted)
    expect(keys.maxNameBytes).toBe(1023)
    expect(keys.nameProblem("x".repeat(1023))).toBeUndefined()
    expect(keys.nameProblem("x".repeat(1024))).toContain(
      "takes 1025 UTF-8 bytes as a key, over DynamoDB's limit of 1024"
    )
    expect(keys.nameProblem("")).toContain("a semaphore name must not be empty")
  })
})
