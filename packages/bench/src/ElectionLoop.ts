/**
 * Leader election under contention: every worker runs `LeaderElection.run` on one name, and each term leads for
 * `holdMs` and then completes, which resigns; the worker campaigns again, until `endAt` (epoch ms). A term is an
 * acquisition here: the contention table counts the store calls per term, the waits and each worker's share.
 */
import * as LeaderElection from "@leasehold/lock/LeaderElection"
import type * as LockStore from "@leasehold/lock/LockStore"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { Acquisition, LoopOptions } from "./Protocol.js"

/** Every term one worker led. */
export const loop = (options: LoopOptions): Effect.Effect<Array<Acquisition>, unknown, LockStore.LockStore> =>
  Effect.gen(function*() {
    const terms: Array<Acquisition> = []
    const lead = (askedAt: number) =>
      Effect.zipRight(
        Effect.sync(() => terms.push({ askedAt, enteredAt: performance.timeOrigin + performance.now() })),
        Effect.sleep(Duration.millis(options.holdMs))
      )
    while (Date.now() < options.endAt) {
      const askedAt = performance.timeOrigin + performance.now()
      yield* LeaderElection.run(options.key, () => lead(askedAt), { lease: Duration.millis(options.leaseMs) })
    }
    return terms
  })
