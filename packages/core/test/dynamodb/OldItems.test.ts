import { describe, expect, it } from "vitest"
import * as OldItems from "../../src/dynamodb/OldItems.js"

const item = { key: { S: "a" } }

describe("OldItems", () => {
  it("reads the item of every conflict until the server has returned an old item", () => {
    const learned = OldItems.make()
    expect(OldItems.oldItem(learned, undefined, true)).toEqual({ _tag: "Read" })
    expect(OldItems.oldItem(learned, undefined, false)).toEqual({ _tag: "Read" })
    expect(learned.returnsOldItems).toBe(false)
  })

  it("takes a returned item as it is, and then reads a missing one as no item where none may be", () => {
    const learned = OldItems.make()
    expect(OldItems.oldItem(learned, item, false)).toEqual({ _tag: "Known", item })
    expect(learned.returnsOldItems).toBe(true)
    expect(OldItems.oldItem(learned, undefined, true)).toEqual({ _tag: "Known", item: undefined })
    // A conflict that must have had an item, yet came without one, is read.
    expect(OldItems.oldItem(learned, undefined, false)).toEqual({ _tag: "Read" })
  })
})
