/**
 * The demo end to end, as CI runs it: a short run on dynalite with every incident, spawned as `npm run demo` would
 * spawn it. It must exit 0 and print a verdict whose every line passed.
 */
import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"

const packageDirectory = fileURLToPath(new URL("..", import.meta.url))

const runDemo = (args: ReadonlyArray<string>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ["--conditions=@leasehold/source", "--import", "tsx", "src/main.ts", ...args],
      {
        cwd: packageDirectory,
        timeout: 150_000,
        env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" }
      },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : (error.code as number | null), stdout, stderr })
    )
  })

describe("npm run demo", () => {
  it("a short run with every incident passes its verdict and exits 0", async () => {
    const { code, stderr, stdout } = await runDemo(["--duration", "6s", "--workers", "3", "--lease", "1500ms"])
    const context = `stdout:\n${stdout}\nstderr:\n${stderr}`
    expect(code, context).toBe(0)
    const verdict = stdout.slice(stdout.indexOf("Verdict after"))
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

  it("the control run without the lock (--unsafe) loses updates, and the verdict says so with exit 1", async () => {
    const { code, stderr, stdout } = await runDemo([
      "--unsafe",
      "--incidents",
      "none",
      "--duration",
      "3s",
      "--workers",
      "3"
    ])
    const context = `stdout:\n${stdout}\nstderr:\n${stderr}`
    expect(code, context).toBe(1)
    const verdict = stdout.slice(stdout.indexOf("Verdict after"))
    expect(verdict, context).toMatch(/^FAIL {2}ledger value = completed sections/m)
    expect(verdict).toMatch(/^FAIL {2}overlapping critical sections: [1-9]/m)
    expect(verdict.trim().split("\n").at(-1)).toBe("VERDICT: FAIL")
  }, 120_000)

  it("rejects an unknown option with the usage text and exit 1", async () => {
    const { code, stderr } = await runDemo(["--workers", "many"])
    expect(code).toBe(1)
    expect(stderr).toContain("--workers: \"many\" must be a whole number")
    expect(stderr).toContain("Usage: npm run demo")
  }, 60_000)
})
