/**
 * The executable's entry point, unbundled, from its sources through tsx, with `--local`: one smoke test, since tsx
 * takes seconds to start on busy cores. The other tests run a bundle of the same sources; the compiled `bin/` of the
 * packed package is exercised by the package check (`npm run check:packages`).
 */
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { fileURLToPath } from "node:url"
import { runScript } from "./support.js"

const entry = [
  "--conditions=@leasehold/source",
  "--import",
  "tsx",
  fileURLToPath(new URL("../src/bin.ts", import.meta.url))
]

it.effect(
  "leasehold watch --local starts an embedded server, tells how to reach it, and stops after --count",
  () =>
    Effect.gen(function*() {
      const result = yield* runScript(entry, ["watch", "--local", "--count", "1"])
      expect(result.code).toBe(0)
      expect(result.stderr).toMatch(/DYNAMODB_ENDPOINT=http:\/\/127\.0\.0\.1:\d+ LEASEHOLD_TABLE=leasehold-locks/)
      expect(result.stdout).toContain("snapshot: no locks or semaphores in table \"leasehold-locks\"")
    }),
  60_000
)
