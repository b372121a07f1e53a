import { defaultServerConditions } from "vite"
import { defineProject } from "vitest/config"

// The repository's packages (the core among them) point their `@leasehold/source` export condition at their
// TypeScript sources, so tests run what is in `src/` without a build; published packages resolve to `dist/`.
const sourceConditions = ["@leasehold/source", ...defaultServerConditions]

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
