import { defineConfig } from "vitest/config"

// The Effect 4 line's test projects, one per package; `npm run test:effect4` at the repository's root runs them
// under Node 22.
export default defineConfig({
  test: {
    projects: ["packages/lock", "packages/testing", "packages/dynamodb", "packages/demo"]
  }
})
