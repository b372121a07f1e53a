import { defaultServerConditions } from "vite"
import { defineProject } from "vitest/config"

// Inside the repository the packages' `@leasehold/source` export condition points at their TypeScript sources, so tests
// run what is in `src/` without a build; published packages resolve to the compiled `dist/`.
const sourceConditions = ["@leasehold/source", ...defaultServerConditions]

// Settings every package's test project shares.
export const sharedProject = (name: string) =>
  defineProject({
    ssr: { resolve: { conditions: sourceConditions } },
    test: {
      name,
      include: ["test/**/*.test.ts"],
      environment: "node",
      fakeTimers: { toFake: [] },
      // Integration tests start servers and processes on a 2-core machine; TestClock tests never wait for real.
      testTimeout: 20_000,
      hookTimeout: 60_000
    }
  })
