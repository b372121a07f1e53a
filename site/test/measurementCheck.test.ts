import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "vitest"
import { checkPages, findMeasurements } from "../scripts/measurementCheck.js"
import { sourceRoot } from "../scripts/paths.js"

const sentences = (markdown: string) => findMeasurements(markdown).map((finding) => finding.sentence)

describe("findMeasurements", () => {
  it("flags a measurement stated in prose, with the line it starts on", () => {
    const page = "# Performance\n\nSome text.\n\nUnder contention Leasehold's wait p99 is\n237 ms on dynalite.\n"
    expect(findMeasurements(page)).toEqual([
      { line: 5, sentence: "Under contention Leasehold's wait p99 is 237 ms on dynalite." }
    ])
  })

  it("flags an approximate number with a unit whatever the sentence says", () => {
    expect(sentences("- a held lease costs about 7 KiB and one fiber;\n- the demo takes ~40 s.")).toEqual([
      "- a held lease costs about 7 KiB and one fiber;",
      "- the demo takes ~40 s."
    ])
  })

  it("flags a table row whose header gives its numbers a measured unit", () => {
    const table =
      "| measure | Leasehold | peer |\n|---|---|---|\n| wait p99 (ms) | 287 | 591 |\n| fencing | yes | no |\n"
    expect(sentences(table)).toEqual(["| wait p99 (ms) | 287 | 591 |"])
  })

  it("does not flag option values, limits and bounds computed from defaults", () => {
    const page = [
      "| option | default | why |",
      "|---|---|---|",
      "| `lease` | 30 s | rides out a GC pause |",
      "",
      "At the defaults (lease 30 s, `maxClockSkew` 10 s, `pollInterval` 1 s) that is 41 s; a watcher reads once a",
      "second. `data` takes at most 392 KiB, so the largest lock fits DynamoDB's 400 KB item."
    ].join("\n")
    expect(findMeasurements(page)).toEqual([])
  })

  it("does not read code, inline code, comments or generated numbers", () => {
    const page = [
      "```ts",
      "// the bench measured p99 237 ms here",
      "```",
      "",
      "The bench's wait p99 is {bench:2; Leasehold, 4 processes; wait p99 ms} ms (`p99 237 ms` in the table).",
      "<!-- measured p99 237 ms -->"
    ].join("\n")
    expect(findMeasurements(page)).toEqual([])
  })
})

describe("checkPages", () => {
  it("fails with each page and line that states a measurement, and skips the generated ones", () => {
    const root = Fs.mkdtempSync(Path.join(Os.tmpdir(), "site-pages-"))
    try {
      Fs.mkdirSync(Path.join(root, "guide"))
      Fs.mkdirSync(Path.join(root, "api"))
      Fs.writeFileSync(Path.join(root, "guide", "a.md"), "# A\n\nThe bench measured 158 cycles/s.\n")
      Fs.writeFileSync(Path.join(root, "guide", "b.md"), "# B\n\nThe lease defaults to 30 s.\n")
      Fs.writeFileSync(Path.join(root, "api", "c.md"), "# C\n\nThe bench measured 158 cycles/s.\n")
      expect(() => checkPages(root, ["api"])).toThrow(
        /1 sentences .*\nguide\/a\.md:3: The bench measured 158 cycles\/s\.$/s
      )
      Fs.rmSync(Path.join(root, "guide", "a.md"))
      expect(checkPages(root, ["api"])).toBe(1)
    } finally {
      Fs.rmSync(root, { recursive: true, force: true })
    }
  })
})

describe("the site's written pages", () => {
  it("state no measurement by hand", () => {
    expect(checkPages(sourceRoot, ["api", "benchmarks.md"])).toBeGreaterThan(10)
  })
})
