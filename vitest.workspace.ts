// The test projects, one per package. The root vitest.config.ts reads this list, so `vitest run` at the top level
// runs every package's tests without vitest's deprecation warning for workspace files.
export default [
  "packages/core",
  "packages/lock",
  "packages/testing",
  "packages/dynamodb",
  "packages/cli",
  "packages/demo",
  "packages/bench",
  "site"
]
