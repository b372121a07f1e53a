import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "vitest"
import { fromMarkdown, load, reference } from "../scripts/benchValues.js"
import { sourceRoot } from "../scripts/paths.js"

// A BENCHMARKS.md of the shape `npm run bench` writes, with a hand-written part after the tables.
const run = [
  "# Benchmarks",
  "",
  "- Machine: Some CPU, 2 cores, 8 GiB, Linux 6.1 (x64)",
  "- Node v20.0.0; commit abc1234; 2026-01-02T03:04:05.000Z",
  "- Versions: effect 3.0.0, dynalite 4.0.0, dynamodb-lock-client 0.7.3",
  "",
  "## 1. Uncontended acquire + release (embedded dynalite)",
  "",
  "| contender | cycles/s | client CPU ms/cycle | writes/cycle | reads/cycle |",
  "| --- | ---: | ---: | ---: | ---: |",
  "| raw SDK floor | 200 (190–210) | 2.000 (1.9–2.1) | 2.00 | 0.00 |",
  "| Leasehold | 150 (140–160) | 3.000 (2.9–3.1) | 2.00 | 0.00 |",
  "",
  "| cycle | first on a new name: writes | reads | each of the next 200: writes | reads |",
  "| --- | ---: | ---: | ---: | ---: |",
  "| Semaphore.withPermits, limit 2 | 3 | 1 | 2.00 | 0.00 |",
  "",
  "## 2. Contention on one key (embedded dynalite)",
  "",
  "Each contender loops for 8000 ms: acquire the key, waiting as its library waits, hold it 5 ms, release.",
  "",
  "| setup | lease ms | wait p99 ms |",
  "| --- | ---: | ---: |",
  "| Leasehold, 4 processes | 300 | 12345.6 |",
  "",
  "## 3. Takeover after SIGKILL (embedded dynalite)",
  "",
  "| contender, takeover mode | lease ms | bound: at most ms | kill → takeover ms |",
  "| --- | ---: | ---: | ---: |",
  "| Leasehold, absolute (maxClockSkew lease / 2) | 1000 | 1500 | 1444 (1361–1488) |",
  "",
  "## Reading the numbers (hand-written; packages/bench/FINDINGS.md)",
  "",
  "| contender | cycles/s |",
  "| --- | ---: |",
  "| Leasehold | 999 |",
  ""
].join("\n")

describe("fromMarkdown", () => {
  const values = fromMarkdown(run)

  it("gives a cell's median as the table prints it, thousands grouped, or in the form asked for", () => {
    expect(values.value("1; Leasehold; cycles/s")).toBe("150")
    expect(values.value("2; Leasehold, 4 processes; wait p99 ms")).toBe("12,345.6")
    expect(values.value("3; Leasehold, absolute; kill → takeover ms")).toBe("1,444")
    expect(values.value("3; Leasehold, absolute; kill → takeover ms; whole")).toBe("1,444 (1361–1488)")
    expect(values.value("1; Leasehold; writes/cycle; int")).toBe("2")
    expect(values.value("1; Leasehold;\n  client CPU ms/cycle; 1")).toBe("3.0")
  })

  it("says whether every takeover trial stayed inside its bound", () => {
    expect(values.value("3 within bounds")).toBe("every trial of every mode stayed inside its bound")
    expect(fromMarkdown(run.replace("| 1000 | 1500 |", "| 1000 | 1400 |")).value("3 within bounds"))
      .toBe("the slowest trial went past its mode's bound in Leasehold, absolute")
  })

  it("gives the ratio of two rows, a column of a grouped header, and the run's header", () => {
    expect(values.value("1; Leasehold / raw SDK floor; client CPU ms/cycle")).toBe("1.50x")
    expect(values.value("1 calls; Semaphore.withPermits, limit 2; first on a new name: reads")).toBe("1")
    expect(values.value("1 calls; Semaphore.withPermits, limit 2; each of the next 200: writes")).toBe("2.00")
    expect(values.value("machine")).toBe("Some CPU, 2 cores, 8 GiB")
    expect(values.value("date")).toBe("2026-01-02")
    expect(values.value("hold ms")).toBe("5")
    expect(values.value("version dynamodb-lock-client")).toBe("0.7.3")
  })

  it("fails on a name the run does not have, saying what it has", () => {
    expect(() => values.value("1; Leasehold Semaphore; cycles/s")).toThrow(
      /no row "Leasehold Semaphore".*raw SDK floor; Leasehold/
    )
    expect(() => values.value("1; Leasehold; wait p99 ms")).toThrow(/no column "wait p99 ms"/)
    expect(() => values.value("99; Leasehold; cycles/s")).toThrow(/no table "99"/)
    expect(() => values.value("version effect-distributed-lock")).toThrow(/does not give/)
  })

  it("reads nothing from the hand-written part", () => {
    const findingsOnly = run.replace("## 1. Uncontended", "## 0. Elsewhere")
    expect(() => fromMarkdown(findingsOnly).value("1; Leasehold; cycles/s")).toThrow(/no heading/)
  })

  it("puts the values into a page, and names the page when one is missing", () => {
    expect(values.render("p99 {bench:2; Leasehold, 4 processes; wait p99 ms} ms, {bench:machine}.", "a.md"))
      .toBe("p99 12,345.6 ms, Some CPU, 2 cores, 8 GiB.")
    expect(() => values.render("{bench:1; Nobody; cycles/s}", "guide/a.md")).toThrow(/^guide\/a\.md: /)
  })

  it("leaves references in code as they are written", () => {
    const page = "Write `{bench:machine}` for {bench:machine}:\n\n```md\n{bench:machine}\n```\n"
    expect(values.render(page, "a.md")).toBe(
      "Write `{bench:machine}` for Some CPU, 2 cores, 8 GiB:\n\n```md\n{bench:machine}\n```\n"
    )
  })

  it("puts values between two code blocks, each after a blank line", () => {
    const page = "Intro.\n\n```ts\nconst a = 1\n```\n\nOn {bench:machine}.\n\n```ts\nconst b = 2\n```\n"
    expect(values.render(page, "a.md")).toBe(
      "Intro.\n\n```ts\nconst a = 1\n```\n\nOn Some CPU, 2 cores, 8 GiB.\n\n```ts\nconst b = 2\n```\n"
    )
  })
})

describe("the repository's BENCHMARKS.md", () => {
  it("gives every value the site's pages name", () => {
    const values = load()
    const pages = Fs.readdirSync(Path.join(sourceRoot, "guide")).map((file) => Path.join(sourceRoot, "guide", file))
    const named = pages.flatMap((page) => [...Fs.readFileSync(page, "utf8").matchAll(reference)].map((m) => m[1]!))
    expect(named.length).toBeGreaterThan(20)
    for (const name of named) expect(values.value(name)).not.toBe("")
  })
})
