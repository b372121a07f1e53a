import { defineProject } from "vitest/config"

// Settings every package's test project shares.
export const sharedProject = (name: string) =>
  defineProject({
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
