import { describe, expect, it } from "vitest"
import * as Transition from "../../src/store/Transition.js"

describe("Transition.apply", () => {
  it("gives the rule the record kept, keeps what it writes and answers its result", () => {
    const records = new Map([["a", 1]])
    const seen: Array<number | undefined> = []
    const increment = (current: number | undefined) => {
      seen.push(current)
      return Transition.written("done", (current ?? 0) + 1)
    }
    expect(Transition.apply(records, "a", increment)).toBe("done")
    expect(Transition.apply(records, "b", increment)).toBe("done")
    expect(seen).toEqual([1, undefined])
    expect([...records]).toEqual([["a", 2], ["b", 1]])
  })

  it("leaves the records as they were when the rule writes nothing", () => {
    const records = new Map([["a", 1]])
    expect(Transition.apply(records, "b", () => Transition.unchanged("conflict"))).toBe("conflict")
    expect([...records]).toEqual([["a", 1]])
  })
})
