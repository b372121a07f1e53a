import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { defaultServerConditions } from "vite"
import { defineProject } from "vitest/config"

// The packages' sources and tests are copies of the one source in the repository's `packages/`: bring them up to date
// first (with the repository's own script and tsx), so that a run here always tests what is written there.
execFileSync(process.execPath, ["--import", "tsx", "scripts/effect4Sources.ts"], {
  cwd: fileURLToPath(new URL("..", import.meta.url)),
  stdio: ["ignore", "ignore", "inherit"]
})

// The repository's packages (the core among them) point their `@leasehold/source` export condition at their
// TypeScript sources, so tests run what is in `src/` without a build; published packages resolve to `dist/`.
// Vite's "module" condition is left out: vitest 5 hands what it resolves to Node, and the AWS SDK's "module" files
// import each other without file extensions, which only a bundler accepts; Node takes its "node" files.
const sourceConditions = ["@leasehold/source", ...defaultServerConditions.filter((condition) => condition !== "module")]

// Settings every package's test project shares: the Effect 3 line's, so that both lines' tests read alike.
export const sharedProject = (name: string) =>
  defineProject({
    ssr: { resolve: { conditions: sourceConditions } },
    test: {
      name,
      include: ["test/**/*.test.ts"],
      environment: "node",
      fakeTimers: { toFake: [] },
      testTimeout: 20_000,
      hookTimeout: 60_000
    }
  })
