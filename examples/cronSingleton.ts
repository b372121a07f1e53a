/**
 * A cron-style singleton: every replica of a service runs the same schedule, and the lock makes sure one of them, and
 * only one, runs each tick of the nightly report. Replicas that lose the race skip the tick; if the replica running
 * the job dies, its lease runs out and the next tick runs elsewhere.
 *
 *   LEASEHOLD_TABLE=locks AWS_REGION=eu-west-1 node --import tsx examples/cronSingleton.ts
 */
import { NodeRuntime } from "@effect/platform-node"
import { DynamoLockStore } from "@leasehold/dynamodb"
import { Lock } from "@leasehold/lock"
import { Cron, Effect, Either, Schedule } from "effect"

/** The job itself; `fence` goes to anything it writes, so a replica that outlived its lease can be refused. */
const nightlyReport = (fence: number) =>
  Effect.gen(function*() {
    yield* Effect.logInfo(`building the nightly report (fence ${fence})`)
    yield* Effect.sleep("2 seconds")
    yield* Effect.logInfo("report done")
  })

const tick = Effect.gen(function*() {
  const lease = yield* Lock.acquire("nightly-report", {
    // Try once: another replica holding the lock means this tick is taken care of.
    wait: 0,
    // Long enough for the job between heartbeats; the heartbeat renews it while the job runs.
    lease: "1 minute"
  })
  yield* nightlyReport(lease.fence)
}).pipe(
  Effect.scoped,
  Effect.either,
  Effect.flatMap(Either.match({
    onLeft: (error) =>
      error._tag === "LockNotAcquired"
        ? Effect.logInfo(`another replica runs this tick: ${error.message}`)
        : Effect.logWarning(`tick failed: ${error.message}`),
    onRight: () => Effect.void
  }))
)

// At 02:00 every night (UTC); every replica wakes up, one of them works.
const schedule = Schedule.cron(Cron.unsafeParse("0 2 * * *", "UTC"))

const program = Effect.repeat(tick, schedule).pipe(
  Effect.provide(DynamoLockStore.layerConfig())
)

NodeRuntime.runMain(program)
