import { describe, expect, it } from "vitest"
import * as Draws from "../../src/simulation/Draws.js"
import * as Fault from "../../src/simulation/Fault.js"
import * as Generate from "../../src/simulation/Generate.js"
import * as Prng from "../../src/simulation/Prng.js"
import * as Schedule from "../../src/simulation/Schedule.js"

const seeds = Array.from({ length: 40 }, (_, i) => i + 1)

describe("Prng", () => {
  it("the same seed gives the same stream in [0, 1); another seed another stream", () => {
    const a = Prng.make(42)
    const b = Prng.make(42)
    const xs = Array.from({ length: 100 }, () => a())
    expect(Array.from({ length: 100 }, () => b())).toEqual(xs)
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true)
    expect(Prng.make(43)()).not.toBe(xs[0])
  })

  it("draws integers within their bounds, both ends included", () => {
    const { int, pick } = Draws.make(Prng.make(7))
    const ints = Array.from({ length: 500 }, () => int(2, 4))
    expect(new Set(ints)).toEqual(new Set([2, 3, 4]))
    expect(["x"].includes(pick(["x"]))).toBe(true)
    expect(Draws.baseFaultKinds.some(Fault.isLate)).toBe(false)
  })
})

describe("Generate.generate", () => {
  it("replays exactly from a seed, in every class", () => {
    for (const mode of [undefined, ...Schedule.modes]) {
      expect(Generate.generate(11, { mode })).toEqual(Generate.generate(11, { mode }))
    }
  })

  it("a class adds to the base schedule without moving its draws", () => {
    for (const seed of seeds) {
      const base = Generate.generate(seed, { mode: "safe" })
      const skew = Generate.generate(seed, { mode: "skew" })
      expect(skew.takeover).toBe(base.takeover)
      const wrapped = Generate.generate(seed, { mode: "wrapped" })
      expect(wrapped.sections.map((s) => [s.process, s.name, s.at])).toEqual(
        base.sections.map((s) => [s.process, s.name, s.at])
      )
      expect(wrapped.faults.slice(0, base.faults.length)).toEqual(base.faults)
    }
  })

  it("base schedules keep processes within the skew bound, pauses under the safety margin, and sections sorted", () => {
    const t = Schedule.defaultTimings
    for (const seed of seeds) {
      const s = Generate.generate(seed, { mode: "safe" })
      const offsets = s.processes.map((p) => p.offsetMs)
      expect(Math.max(...offsets) - Math.min(...offsets)).toBeLessThan(t.maxClockSkewMs)
      expect(s.processes.flatMap((p) => p.pauses).every((p) => p.ms < t.safetyMarginMs)).toBe(true)
      expect(s.sections.map((x) => x.at)).toEqual([...s.sections.map((x) => x.at)].sort((a, b) => a - b))
      expect(s.faults.every((f) => !Fault.isLate(f.fault.kind))).toBe(true)
      expect(s.processes.length).toBeGreaterThanOrEqual(2)
    }
  })

  it("each class adds what it tests", () => {
    const t = Schedule.defaultTimings
    const all = (mode: Schedule.Mode) => seeds.map((seed) => Generate.generate(seed, { mode }))
    for (const s of all("skew")) {
      expect(s.processes.some((p) => Math.abs(p.offsetMs) > t.maxClockSkewMs)).toBe(true)
    }
    for (const s of all("longPause")) {
      expect(s.processes.flatMap((p) => p.pauses).some((p) => p.ms > t.leaseMs)).toBe(true)
    }
    expect(all("wrapped").some((s) => s.sections.some((x) => Schedule.wrappedApis.includes(x.api)))).toBe(true)
    const regions = all("wrapped").flatMap((s) => s.sections.flatMap((x) => x.region === undefined ? [] : [x]))
    expect(new Set(regions.map((x) => x.region!.kind))).toEqual(new Set(["sibling", "forkedBefore", "detached"]))
    for (const x of regions) {
      // A sibling job or a fiber forked before the acquire only where the acquire's fiber ends before the section.
      if (x.region!.kind !== "detached") expect(Schedule.wrappedApis).toContain(x.api)
      // A child beside a sibling job would be that job's, which a region does not let re-enter.
      if (x.region!.kind === "sibling") expect(x.child).toBeUndefined()
    }
    expect(regions.some((x) => x.child !== undefined)).toBe(true)
    expect(all("reentry").some((s) => s.sections.some((x) => x.child !== undefined))).toBe(true)
    for (const s of all("steal")) expect(s.steals!.length).toBeGreaterThan(0)
    for (const s of all("clockStep")) expect(s.processes.some((p) => (p.clockSteps ?? []).length > 0)).toBe(true)
    expect(all("badOptions").some((s) => s.sections.some((x) => x.badOption !== undefined))).toBe(true)
    expect(all("handOff").some((s) => s.sections.some((x) => x.handOff !== undefined))).toBe(true)
    for (const s of all("semaphore")) {
      const limits = new Map<string, number>()
      for (const x of s.sections) {
        if (x.semaphore === undefined) continue
        expect(x.semaphore.permits).toBeLessThanOrEqual(x.semaphore.limit)
        // One limit per name.
        expect(limits.get(x.name) ?? x.semaphore.limit).toBe(x.semaphore.limit)
        limits.set(x.name, x.semaphore.limit)
      }
    }
    for (const s of all("late")) expect(s.faults.some((f) => Fault.isLate(f.fault.kind))).toBe(true)
    const readWrite = all("readWrite")
    for (const s of readWrite) {
      const uses = s.sections.filter((x) => x.readWrite !== undefined)
      expect(uses.length).toBeGreaterThan(s.sections.length / 2)
      for (const x of uses) {
        expect(["withLock", "acquire"]).toContain(x.api)
        expect([x.child, x.handOff, x.region, x.semaphore, x.together, x.updates, x.badOption]).toEqual(
          Array(7).fill(undefined)
        )
      }
      expect(s.faults.some((f) => Fault.isPermitOperation(f.operation))).toBe(true)
    }
    const uses = readWrite.flatMap((s) => s.sections.flatMap((x) => x.readWrite === undefined ? [] : [x]))
    const readers = uses.filter((x) => x.readWrite === "read").length
    // Mostly readers, and writers enough to wait for them and keep them waiting.
    expect(readers).toBeGreaterThan(uses.length / 2)
    expect(readers).toBeLessThan(uses.length * 0.8)
    expect(uses.some((x) => x.wait === "forever") && uses.some((x) => x.wait !== "forever")).toBe(true)
    expect(readWrite.some((s) => s.faults.some((f) => f.operation === "reservePermits"))).toBe(true)
    expect(readWrite.some((s) => s.faults.some((f) => Fault.isLate(f.fault.kind)))).toBe(true)
    // Some sections keep the lock of their name.
    expect(readWrite.some((s) => s.sections.some((x) => x.readWrite === undefined))).toBe(true)
  })

  it("the multi class: some uses take their locks in one store call first, with faults on that call", () => {
    const multi = seeds.map((seed) => Generate.generate(seed, { mode: "multi" }))
    const together = multi.flatMap((s) => s.sections.filter((x) => x.together !== undefined))
    const transactions = together.filter((x) => x.transaction === true)
    // A third to a half of the uses that take locks together; no other section asks for a transaction.
    expect(transactions.length).toBeGreaterThan(together.length / 3)
    expect(transactions.length).toBeLessThan(together.length / 2)
    expect(multi.every((s) => s.sections.every((x) => x.transaction !== true || x.together !== undefined))).toBe(true)
    const onTakes = multi.flatMap((s) => s.faults.filter((f) => f.operation === "tryAcquireAll"))
    expect(onTakes.length).toBeGreaterThan(seeds.length)
    // Only on processes that make such calls; some of them held and delivered after their sender gave up.
    for (const s of multi) {
      const senders = new Set(s.sections.flatMap((x) => x.transaction === true ? [x.process] : []))
      for (const f of s.faults) if (f.operation === "tryAcquireAll") expect(senders).toContain(f.process)
    }
    expect(onTakes.some((f) => Fault.isLate(f.fault.kind))).toBe(true)
    expect(new Set(onTakes.map((f) => f.fault.kind))).toEqual(new Set(Fault.kinds))
    for (const mode of Schedule.modes.filter((m) => m !== "multi")) {
      for (const s of seeds.slice(0, 10).map((seed) => Generate.generate(seed, { mode }))) {
        expect(s.sections.some((x) => x.transaction !== undefined)).toBe(false)
        expect(s.faults.some((f) => f.operation === "tryAcquireAll")).toBe(false)
      }
    }
  })

  it("without a mode, seeds spread over every class, each drawn for some and none for more than a sixth", () => {
    const count = 2_000
    const modes = Array.from({ length: count }, (_, i) => Generate.generate(i + 1).mode)
    for (const mode of Schedule.modes) {
      const drawn = modes.filter((m) => m === mode).length
      // A class that took its share from `safe` is drawn often enough to run in any batch of a few hundred seeds.
      expect(drawn).toBeGreaterThanOrEqual(count / 200)
      expect(drawn).toBeLessThanOrEqual(count / 6)
    }
  })
})
