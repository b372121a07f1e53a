import { describe, expect, it } from "vitest"
import * as Utf8 from "../../src/record/Utf8.js"

describe("Utf8", () => {
  it("counts the bytes of one, two, three and four byte characters", () => {
    expect(Utf8.byteLength("")).toBe(0)
    expect(Utf8.byteLength("a")).toBe(1)
    expect(Utf8.byteLength("é")).toBe(2)
    expect(Utf8.byteLength("€")).toBe(3)
    expect(Utf8.byteLength("😀")).toBe(4)
  })

  it("fits a string of exactly the budget and not a byte more, also past the shortcut for short strings", () => {
    expect(Utf8.fits("€€", 6)).toBe(true)
    expect(Utf8.fits("€€", 5)).toBe(false)
    expect(Utf8.fits("a".repeat(10), 10)).toBe(true)
    expect(Utf8.fits("a".repeat(10), 9)).toBe(false)
    expect(Utf8.fits("😀", 3)).toBe(false)
  })

  it("finds lone surrogates, high or low, and takes pairs", () => {
    expect(Utf8.isWellFormed("😀 ok")).toBe(true)
    expect(Utf8.isWellFormed("\uD83D")).toBe(false)
    expect(Utf8.isWellFormed("x\uDE00")).toBe(false)
    expect(Utf8.isWellFormed("\uDE00\uD83D")).toBe(false)
  })
})
