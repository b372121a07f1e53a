import { describe, expect, it } from "vitest"
import * as Gate from "../../src/simulation/Gate.js"
import * as Timeline from "../../src/simulation/Timeline.js"

describe("Gate", () => {
  it("holds its waiters while paused and lets them through in order on resume, but not a withdrawn one", () => {
    const gate = new Gate.Gate()
    const through: Array<string> = []
    expect(gate.paused).toBe(false)
    gate.pause()
    expect(gate.paused).toBe(true)
    gate.wait(() => through.push("a"))
    const withdraw = gate.wait(() => through.push("b"))
    gate.wait(() => through.push("c"))
    withdraw()
    expect(through).toEqual([])
    gate.resume()
    expect(gate.paused).toBe(false)
    expect(through).toEqual(["a", "c"])
    gate.resume()
    expect(through).toEqual(["a", "c"])
  })

  it("is closed during each planned pause on the timeline, and open around them", () => {
    const timeline = new Timeline.Timeline()
    const gate = new Gate.Gate()
    Gate.closeDuring(gate, [{ at: 10, ms: 5 }, { at: 30, ms: 20 }], timeline)
    const seen: Array<[number, boolean]> = []
    for (const at of [0, 10, 12, 15, 29, 30, 49, 50]) timeline.schedule(at, () => seen.push([at, gate.paused]))
    timeline.runUntil(100)
    expect(seen).toEqual([
      [0, false],
      [10, true],
      [12, true],
      [15, false],
      [29, false],
      [30, true],
      [49, true],
      [50, false]
    ])
  })
})
