import { describe, expect, it } from "vitest"
import * as NameRefusal from "../../src/store/NameRefusal.js"

describe("NameRefusal", () => {
  it("says how long a lock name is against the budget, an empty one as none", () => {
    expect(NameRefusal.lock({ _tag: "TooLong", bytes: 1_030 }, 1_024))
      .toBe("lock name is 1030 UTF-8 bytes; this store takes names of 1 to 1024 bytes")
    expect(NameRefusal.lock({ _tag: "Empty" }, 1_024))
      .toBe("lock name is 0 UTF-8 bytes; this store takes names of 1 to 1024 bytes")
    expect(NameRefusal.lock({ _tag: "NotWellFormed" }, 1_024))
      .toBe("lock name is not well-formed Unicode (a lone surrogate has no UTF-8 form)")
  })

  it("says a semaphore name's budget is a byte under a lock's", () => {
    expect(NameRefusal.semaphore({ _tag: "TooLong", bytes: 1_024 }, 1_023)).toBe(
      "semaphore name is 1024 UTF-8 bytes; this store takes semaphore names of 1 to 1023 bytes (one less than lock names)"
    )
    expect(NameRefusal.semaphore({ _tag: "Empty" }, 1_023)).toMatch(/^semaphore name is 0 UTF-8 bytes;/)
    expect(NameRefusal.semaphore({ _tag: "NotWellFormed" }, 1_023))
      .toBe("semaphore name is not well-formed Unicode (a lone surrogate has no UTF-8 form)")
  })
})
