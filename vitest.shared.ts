import { defineProject } from "vitest/config"

// Settings every package's test project shares.
export const sharedProject = (name: string) =>
  defineProject({
    test: {
      name,
      include: ["test/**/*.test.ts"],
      environment: "node",
      fakeTimers: { toFake: [] }
    }
  })
