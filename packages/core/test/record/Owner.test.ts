import { describe, expect, it } from "vitest"
import * as Owner from "../../src/record/Owner.js"

describe("Owner", () => {
  it("draws 128-bit hex owner ids, none twice, across refills of the random pool", () => {
    const owners = Array.from({ length: 1000 }, () => Owner.random())
    for (const owner of owners) expect(owner).toMatch(/^[0-9a-f]{32}$/)
    expect(new Set(owners).size).toBe(owners.length)
  })

  it("names the holder by the process id where there is one", () => {
    expect(Owner.defaultHolder).toBe(`pid ${process.pid}`)
  })
})
