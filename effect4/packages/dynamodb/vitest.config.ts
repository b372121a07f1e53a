import { defineProject, mergeConfig } from "vitest/config"
import { sharedProject } from "../../vitest.shared.js"

// DynamoDB Local takes seconds to start, so one instance serves the whole run: test/globalSetup.ts starts it and
// hands its endpoint to the test files with `provide`/`inject`.
export default mergeConfig(
  sharedProject("dynamodb"),
  defineProject({
    test: {
      globalSetup: ["./test/globalSetup.ts"]
    }
  })
)
