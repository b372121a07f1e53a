/**
 * The demo end to end, as CI runs it on each Effect line: a short run on dynalite with every incident, spawned as
 * `npm run demo -- --effect <line>` would spawn it, with the line of this test's project. It must exit 0 and print a
 * verdict whose every line passed, with workers that ran that line's effect.
 */
import { describe, expect, it } from "@effect/vitest"
import { line } from "./effectLine.js"
import { runDemo, verdictOf } from "./runDemo.js"

describe(`npm run demo -- --effect ${line}`, () => {
  it("a short run with every incident passes its verdict and exits 0", async () => {
    const { code, stderr, stdout } = await runDemo(
      ["--effect", line, "--duration", "6s", "--workers", "3", "--lease", "1500ms"],
      150_000
    )
    const context = `stdout:\n${stdout}\nstderr:\n${stderr}`
    expect(code, context).toBe(0)
    expect(stdout.split("\n")[0], context).toMatch(
      new RegExp(`^Leasehold demo, Effect ${line} line: 3 worker processes`)
    )
    // Every worker said it runs this line's effect (on Effect 4, under Node 22 or later).
    expect(stdout, context).toMatch(
      new RegExp(`^workers ready after [\\d.]+ s, on effect ${line}\\.\\d+\\.\\d+, Node v`, "m")
    )
    expect(stdout).not.toMatch(/^workers ready .*;.*; go$/m)
    const verdict = verdictOf(stdout)
    expect(verdict, context).toMatch(/^PASS {2}critical sections completed: [1-9]\d* by/m)
    expect(verdict).toMatch(/^PASS {2}ledger value = completed sections: ledger (\d+), \1 accepted writes/m)
    expect(verdict).toContain("PASS  overlapping critical sections: 0")
    expect(verdict).toMatch(/^PASS {2}SIGKILL of worker \d in its section: takeover: worker \d after/m)
    expect(verdict).toMatch(/^PASS {2}SIGSTOP of worker \d for .*write with fence \d+ rejected$/m)
    expect(verdict).toMatch(/stale writes rejected by the fence: [1-9]/)
    expect(verdict).toMatch(/^PASS {2}server unreachable for \d\.\d\d s: holders: at risk: worker \d/m)
    expect(verdict).toMatch(/store calls \(server side\): .*UpdateItem \d+/)
    expect(verdict).not.toContain("FAIL")
    expect(verdict.trim().split("\n").at(-1)).toBe("VERDICT: PASS (every check holds)")
    // Not a terminal: plain lines, no cursor movement.
    expect(stdout).not.toContain("\x1b[")
  }, 180_000)
})
