/**
 * The demo's parent, the same for both Effect lines: the control run without the lock shows that the verdict's checks
 * can fail, and a wrong option is refused with the usage text.
 */
import { describe, expect, it } from "@effect/vitest"
import { runDemo, verdictOf } from "./runDemo.js"

describe("npm run demo", () => {
  it("the control run without the lock (--unsafe) loses updates, and the verdict says so with exit 1", async () => {
    const { code, stderr, stdout } = await runDemo(
      ["--unsafe", "--incidents", "none", "--duration", "3s", "--workers", "3"],
      100_000
    )
    const context = `stdout:\n${stdout}\nstderr:\n${stderr}`
    expect(code, context).toBe(1)
    const verdict = verdictOf(stdout)
    expect(verdict, context).toMatch(/^FAIL {2}ledger value = completed sections/m)
    expect(verdict).toMatch(/^FAIL {2}overlapping critical sections: [1-9]/m)
    expect(verdict.trim().split("\n").at(-1)).toBe("VERDICT: FAIL")
  }, 120_000)

  it("rejects an unknown option with the usage text and exit 1", async () => {
    const { code, stderr } = await runDemo(["--workers", "many"], 50_000)
    expect(code).toBe(1)
    expect(stderr).toContain("--workers: \"many\" must be a whole number")
    expect(stderr).toContain("Usage: npm run demo")
    expect(stderr).toContain("--effect <3|4>")
  }, 60_000)
})
