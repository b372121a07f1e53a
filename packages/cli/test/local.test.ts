/**
 * The real executable (bin/leasehold.mjs, loading TypeScript through tsx) with `--local`: one smoke test, since tsx
 * takes seconds to start on busy cores. The other tests run a bundle of the same sources.
 */
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { fileURLToPath } from "node:url"
import { runScript } from "./support.js"

const bin = fileURLToPath(new URL("../bin/leasehold.mjs", import.meta.url))

it.effect(
  "leasehold watch --local starts an embedded server, tells how to reach it, and stops after --count",
  () =>
    Effect.gen(function*() {
      const result = yield* runScript([bin], ["watch", "--local", "--count", "1"])
      expect(result.code).toBe(0)
      expect(result.stderr).toMatch(/DYNAMODB_ENDPOINT=http:\/\/127\.0\.0\.1:\d+ LEASEHOLD_TABLE=leasehold-locks/)
      expect(result.stdout).toContain("snapshot: no locks in table \"leasehold-locks\"")
    }),
  60_000
)
