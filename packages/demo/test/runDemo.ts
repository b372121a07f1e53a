/**
 * Runs the demo as `npm run demo` runs it, not on a terminal, and collects what it printed and how it exited.
 */
import { execFile } from "node:child_process"
import { demoDirectory } from "./effectLine.js"

export interface DemoRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

export const runDemo = (args: ReadonlyArray<string>, timeoutMs: number): Promise<DemoRun> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--conditions=@leasehold/source", "--import", "tsx", "src/main.ts", ...args],
      {
        cwd: demoDirectory,
        timeout: timeoutMs,
        env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" }
      },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : (error.code as number | null), stdout, stderr })
    )
  })

/** The verdict's lines: everything from its heading on. */
export const verdictOf = (stdout: string): string => stdout.slice(stdout.indexOf("Verdict after"))
