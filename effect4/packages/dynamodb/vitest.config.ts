import { defaultServerConditions } from "vite"
import { defineProject, mergeConfig } from "vitest/config"
import { sharedProject } from "../../vitest.shared.js"

// Vitest 5 loads global setup files in an environment of its own (`__vitest__`), which does not take the test files'
// `ssr` conditions: it needs `@leasehold/source` as well to load the test kit from its sources.
const setupConditions = ["@leasehold/source", ...defaultServerConditions.filter((condition) => condition !== "module")]

// DynamoDB Local takes seconds to start, so one instance serves the whole run: test/globalSetup.ts starts it and
// hands its endpoint to the test files with `provide`/`inject`.
export default mergeConfig(
  sharedProject("dynamodb"),
  defineProject({
    environments: { __vitest__: { resolve: { conditions: setupConditions } } },
    test: {
      globalSetup: ["./test/globalSetup.ts"]
    }
  })
)
