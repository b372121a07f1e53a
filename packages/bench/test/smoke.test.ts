import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import * as Lines from "../src/Lines.js"

const packageDir = fileURLToPath(new URL("../", import.meta.url))

/** The markdown tables of a document: each a header row and body rows, split into cells. */
const tables = (markdown: string): Array<Array<Array<string>>> => {
  const found: Array<Array<Array<string>>> = []
  let current: Array<Array<string>> | undefined
  for (const line of markdown.split("\n")) {
    if (line.startsWith("|")) {
      current ??= []
      current.push(line.slice(1, -1).split("|").map((cell) => cell.trim()))
    } else if (current !== undefined) {
      found.push(current)
      current = undefined
    }
  }
  if (current !== undefined) found.push(current)
  return found
}

// A cell is "123", "1.23" or "1.23 (1.00–2.00)": median, then min–max over rounds; or "-" where a row made nothing of
// the kind a column measures (no writes among readers alone), never a number that was not measured.
const numeric = /^(\d+(\.\d+)?( \(\d+(\.\d+)?–\d+(\.\d+)?\))?|-)$/

describe("bench --smoke", () => {
  // Long: every section runs, each Leasehold line's rows in worker processes of their own that load from source.
  it("prints every table with numeric cells", { timeout: 300_000 }, async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [
      "--conditions=@leasehold/source",
      "--import",
      "tsx",
      "src/main.ts",
      "--smoke"
    ], {
      cwd: packageDir,
      maxBuffer: 16 * 1024 * 1024
    })
    // The measured tables come before the hand-written reading of them (FINDINGS.md), whose tables are prose.
    const measured = stdout.split("## Reading the numbers")[0]!
    const found = tables(measured)
    expect(found.length).toBeGreaterThanOrEqual(2)
    for (const table of found) {
      const [, separator, ...rows] = table
      expect(separator?.every((cell) => /^-+:?$/.test(cell))).toBe(true)
      expect(rows.length).toBeGreaterThan(0)
      for (const row of rows) {
        for (const cell of row.slice(1)) expect(cell).toMatch(numeric)
      }
    }
    expect(stdout).toContain("| Leasehold |")
    expect(stdout).toContain("| raw SDK floor |")
    expect(stdout).toContain("## 4. Scale")
    expect(stdout).toContain("## 7. Network latency")
    expect(stdout).toContain("## 8. Contention shape")
    expect(stdout).toContain("| ReadWriteLock, 8 readers + 2 writers |")
    // Request units beside the store calls, for every contender.
    expect(stdout).toContain("| write units/cycle | read units/cycle |")
    expect(stdout).toContain("| write units | read units |")
    // Each line's rows in tables 1, 2 and 4 (on DynamoDB) and 5 (memory store), or why they did not run.
    const unavailable = Lines.unavailable()
    const dynamoUnavailable = Lines.dynamoUnavailable()
    for (const line of Lines.lines) {
      if (dynamoUnavailable === undefined) {
        expect(stdout).toContain(`| ${line.name} |`)
        expect(stdout).toContain(`| ${line.name}, 2 processes |`)
        expect(stdout).toContain(`| 20, ${line.name} |`)
      }
      if (unavailable === undefined) expect(stdout).toContain(`| ${line.name}, memory store |`)
    }
    if (dynamoUnavailable !== undefined) expect(stdout).toContain(dynamoUnavailable)
    if (unavailable !== undefined) expect(stdout).toContain(unavailable)
  })
})
