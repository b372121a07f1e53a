import { describe, expect, it } from "vitest"
import * as Timeline from "../../src/simulation/Timeline.js"

describe("Timeline", () => {
  it("runs timers in the order of their times, then of their setting, moving true time to each", () => {
    const timeline = new Timeline.Timeline()
    const fired: Array<string> = []
    const note = (label: string) => () => fired.push(`${label}@${timeline.now}`)
    timeline.schedule(20, note("b"))
    timeline.schedule(10, note("a"))
    timeline.schedule(20, note("c"))
    timeline.schedule(10, note("a2"))
    timeline.runUntil(100)
    expect(fired).toEqual(["a@10", "a2@10", "b@20", "c@20"])
    expect(timeline.now).toBe(100)
  })

  it("runs every ready task, and those they queue, before moving to the next timer", () => {
    const timeline = new Timeline.Timeline()
    const ran: Array<string> = []
    timeline.enqueue(() => {
      ran.push(`first@${timeline.now}`)
      timeline.enqueue(() => ran.push(`queued by first@${timeline.now}`))
    })
    timeline.enqueue(() => ran.push(`second@${timeline.now}`))
    timeline.schedule(5, () => {
      ran.push(`timer@${timeline.now}`)
      timeline.enqueue(() => ran.push(`queued by timer@${timeline.now}`))
    })
    timeline.schedule(6, () => ran.push(`next timer@${timeline.now}`))
    timeline.runUntil(10)
    expect(ran).toEqual([
      "first@0",
      "second@0",
      "queued by first@0",
      "timer@5",
      "queued by timer@5",
      "next timer@6"
    ])
  })

  it("skips a cancelled timer and sets a past time to now", () => {
    const timeline = new Timeline.Timeline()
    const fired: Array<string> = []
    const cancel = timeline.schedule(5, () => fired.push("cancelled"))
    timeline.schedule(8, () => {
      timeline.schedule(2, () => fired.push(`late@${timeline.now}`))
    })
    cancel()
    timeline.runUntil(50)
    expect(fired).toEqual(["late@8"])
  })

  it("stops at `until`, leaving later timers, and where it stands once done", () => {
    const timeline = new Timeline.Timeline()
    let done = false
    const fired: Array<number> = []
    timeline.schedule(10, () => fired.push(timeline.now))
    timeline.schedule(30, () => fired.push(timeline.now))
    timeline.runUntil(20)
    expect(fired).toEqual([10])
    expect(timeline.now).toBe(20)
    timeline.schedule(25, () => {
      done = true
    })
    timeline.runUntil(100, () => done)
    expect(fired).toEqual([10])
    expect(timeline.now).toBe(25)
  })

  it("does not move to an infinite `until` once no timer is left", () => {
    const timeline = new Timeline.Timeline()
    timeline.schedule(7, () => {})
    timeline.runUntil(Infinity)
    expect(timeline.now).toBe(7)
  })
})
