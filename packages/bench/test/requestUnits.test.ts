import { describe, expect, it } from "vitest"
import * as RequestUnits from "../src/RequestUnits.js"

// An item of `bytes` bytes: a one-letter name and a string of `bytes - 1` ASCII characters.
const itemOf = (bytes: number): RequestUnits.Item => ({ a: { S: "x".repeat(bytes - 1) } })

describe("RequestUnits", () => {
  it("charges a write one unit per started KB of its item, and one for an empty or missing item", () => {
    expect(RequestUnits.writeUnits(0)).toBe(1)
    expect(RequestUnits.writeUnits(1)).toBe(1)
    expect(RequestUnits.writeUnits(1024)).toBe(1)
    expect(RequestUnits.writeUnits(1025)).toBe(2)
    expect(RequestUnits.writeUnits(3 * 1024)).toBe(3)
    expect(RequestUnits.writeUnits(3 * 1024 + 1)).toBe(4)
  })

  it("charges a strongly consistent read one unit per started 4 KB, an eventually consistent one half, a transactional one twice", () => {
    expect(RequestUnits.readUnits(0, "strong")).toBe(1)
    expect(RequestUnits.readUnits(4096, "strong")).toBe(1)
    expect(RequestUnits.readUnits(4097, "strong")).toBe(2)
    expect(RequestUnits.readUnits(3500, "eventual")).toBe(0.5)
    expect(RequestUnits.readUnits(10 * 1024, "eventual")).toBe(1.5)
    expect(RequestUnits.readUnits(8 * 1024, "transactional")).toBe(4)
  })

  it("sizes an item by its attribute names and values", () => {
    expect(RequestUnits.itemSize(itemOf(1024))).toBe(1024)
    expect(RequestUnits.writeUnits(RequestUnits.itemSize(itemOf(1024)))).toBe(1)
    expect(RequestUnits.writeUnits(RequestUnits.itemSize(itemOf(1025)))).toBe(2)
    // Names count in UTF-8, as do string values: "é" is 2 bytes.
    expect(RequestUnits.itemSize({ "é": { S: "é" } })).toBe(4)
    expect(RequestUnits.itemSize({ flag: { BOOL: true }, gone: { NULL: true } })).toBe(4 + 1 + 4 + 1)
    // Base64 on the wire, raw bytes in the item.
    expect(RequestUnits.itemSize({ b: { B: Buffer.from([1, 2, 3, 4, 5]).toString("base64") } })).toBe(1 + 5)
  })

  it("sizes a number by its significant digits, two to a byte, plus one", () => {
    expect(RequestUnits.numberSize("7")).toBe(2)
    expect(RequestUnits.numberSize("12")).toBe(2)
    expect(RequestUnits.numberSize("123")).toBe(3)
    expect(RequestUnits.numberSize("1700000000000")).toBe(2)
    expect(RequestUnits.numberSize("-0.00125")).toBe(3)
    expect(RequestUnits.numberSize("1764331200123")).toBe(8)
  })

  it("sizes lists and maps with 3 bytes and 1 per element beside the elements", () => {
    expect(RequestUnits.valueSize({ L: [{ S: "ab" }, { N: "1" }] })).toBe(3 + (1 + 2) + (1 + 2))
    expect(RequestUnits.valueSize({ M: { k: { S: "v" } } })).toBe(3 + 1 + 1 + 1)
    expect(RequestUnits.valueSize({ SS: ["a", "bc"] })).toBe(3)
  })

  it("reads an SDK value whose other members are undefined", () => {
    expect(RequestUnits.valueSize({ S: undefined, N: "42" })).toBe(2)
  })

  it("refuses a type it does not know rather than guessing its size", () => {
    expect(() => RequestUnits.valueSize({ X: "?" })).toThrow(/unknown DynamoDB attribute type/)
  })
})
