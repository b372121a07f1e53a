import { defaultServerConditions } from "vite"
import { defineProject } from "vitest/config"

// The repository's packages (the core among them) point their `@leasehold/source` export condition at their
// TypeScript sources, so tests run what is in `src/` without a build; published packages resolve to `dist/`.
// Vite's "module" condition is left out: vitest 5 hands what it resolves to Node, and the AWS SDK's "module" files
// import each other without file extensions, which only a bundler accepts; Node takes its "node" files.
const sourceConditions = ["@leasehold/source", ...defaultServerConditions.filter((condition) => condition !== "module")]

// A module whose code is the same on both Effect majors is a symbolic link to the Effect 3 package's file: Vite reads
// it where the link stands, so that its imports reach this project's effect and the Effect 4 packages, not the Effect 3
// ones beside the link's target.
export const preserveSymlinks = true

// Settings every package's test project shares: the Effect 3 line's, so that both lines' tests read alike.
export const sharedProject = (name: string) =>
  defineProject({
    resolve: { preserveSymlinks },
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
