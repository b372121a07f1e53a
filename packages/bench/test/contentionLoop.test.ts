import * as LockStore from "@leasehold/lock/LockStore"
import { Effect, Option } from "effect"
import { describe, expect, it } from "vitest"
import * as ContentionLoop from "../src/ContentionLoop.js"
import * as SemaphoreLoop from "../src/SemaphoreLoop.js"

// A store whose every renew finds the lease gone, as when an operator force-releases a holder paused longer than its
// lease: each section is interrupted at its first heartbeat, and the next acquisition finds the name free.
const losingStore = (): LockStore.LockStore => {
  const memory = LockStore.makeMemory()
  return {
    ...memory,
    renew: (request) =>
      memory.release({ name: request.name, owner: request.owner, fence: request.fence }).pipe(
        Effect.as({ _tag: "Lost", current: undefined } as const)
      ),
    renewPermits: (request) =>
      memory.inspectSemaphore(request.name).pipe(
        Effect.flatMap((record) => {
          const permits = Option.getOrUndefined(record)?.holders.find((h) => h.owner === request.owner)?.permits ?? 1
          return memory.releasePermits({ name: request.name, owner: request.owner, fence: request.fence, permits })
        }),
        Effect.as({ _tag: "Lost", current: undefined } as const)
      )
  }
}

const options = () => ({ key: "contended", holdMs: 400, leaseMs: 90, endAt: Date.now() + 600, contenders: 2 })

describe("contention loops on a machine that loses leases", () => {
  it("a lock's loop counts a lost lease as a lost acquisition and goes on", async () => {
    const acquisitions = await Effect.runPromise(
      ContentionLoop.loop(options()).pipe(Effect.provideService(LockStore.LockStore, losingStore()))
    )
    expect(acquisitions.length).toBeGreaterThan(1)
    expect(acquisitions.every((a) => a.lost === true)).toBe(true)
  })

  it("a semaphore's loop does the same", async () => {
    const acquisitions = await Effect.runPromise(
      SemaphoreLoop.loop(options()).pipe(Effect.provideService(LockStore.LockStore, losingStore()))
    )
    expect(acquisitions.length).toBeGreaterThan(1)
    expect(acquisitions.every((a) => a.lost === true)).toBe(true)
  })
})
