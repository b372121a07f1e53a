import { describe, expect, it } from "vitest"
import * as LockName from "../../src/record/LockName.js"

describe("LockName.problem", () => {
  it("takes a well-formed name of at most the budget in UTF-8 bytes", () => {
    expect(LockName.problem("orders/42", 9)).toBeUndefined()
    expect(LockName.problem("€", 3)).toBeUndefined()
  })

  it("finds an empty name, a lone surrogate, and a name a byte too long", () => {
    expect(LockName.problem("", 10)).toEqual({ _tag: "Empty" })
    expect(LockName.problem("a\uD800", 10)).toEqual({ _tag: "NotWellFormed" })
    expect(LockName.problem("€", 2)).toEqual({ _tag: "TooLong", bytes: 3 })
  })
})

describe("LockName.describe", () => {
  it("says nothing of a good name", () => {
    expect(LockName.describe("a", 1, "lock")).toBeUndefined()
  })

  it("says what to do about a bad one, for a lock or a semaphore", () => {
    expect(LockName.describe("", 10, "semaphore")).toBe("a semaphore name must not be empty; use a non-empty name")
    expect(LockName.describe("x\uDC00", 10, "lock")).toBe(
      `lock name "x\\udc00" is not well-formed Unicode (it holds a lone surrogate), so it has no UTF-8 form and two ` +
        `such names could become one key; use a well-formed string`
    )
    expect(LockName.describe("abc", 2, "lock")).toBe(
      `lock name "abc" is 3 UTF-8 bytes, over this store's limit of 2; use a shorter name`
    )
    expect(LockName.describe("abc", 2, "semaphore")).toBe(
      `semaphore name "abc" is 3 UTF-8 bytes, over this store's limit of 2 (a byte less than a lock name's); use a ` +
        `shorter name`
    )
  })

  it("quotes a huge name by its first characters, whole code points", () => {
    const name = "😀".repeat(100)
    const message = LockName.describe(name, 10, "lock")!
    expect(message).toContain(JSON.stringify("😀".repeat(40) + "…"))
    expect(message).not.toContain("\\ud83d")
  })
})

describe("LockName.check", () => {
  it("takes a string the store's judge takes", () => {
    expect(LockName.check("a", "lock", () => undefined)).toEqual({ _tag: "Ok", value: "a" })
  })

  it("refuses what is not a string before asking the store, naming the option 'name'", () => {
    let asked = false
    const checked = LockName.check(42, "semaphore", () => {
      asked = true
      return undefined
    })
    expect(checked).toEqual({
      _tag: "Invalid",
      option: "name",
      message: "a semaphore name must be a non-empty string; got 42"
    })
    expect(asked).toBe(false)
    expect(LockName.check(undefined, "lock", () => undefined)).toMatchObject({
      message: "a lock name must be a non-empty string; got undefined"
    })
  })

  it("refuses with the store's own words", () => {
    expect(LockName.check("a#b", "lock", (name) => name.includes("#") ? "no # here" : undefined)).toEqual({
      _tag: "Invalid",
      option: "name",
      message: "no # here"
    })
  })
})
