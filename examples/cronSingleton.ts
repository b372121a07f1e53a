/**
 * A cron-style singleton: every replica of a service runs the same schedule, and the lock makes sure one of them, and
 * only one, runs each tick of the nightly report. Replicas that lose the race skip the tick; if the replica running
 * the job dies, its lease runs out and the next tick runs elsewhere.
 *
 *   LEASEHOLD_TABLE=locks AWS_REGION=eu-west-1 node --import tsx examples/cronSingleton.ts
 *
 * REPORT_CRON overrides the schedule (cron syntax, UTC, with an optional seconds field first), e.g. every 10 seconds
 * to watch two replicas share the work locally: REPORT_CRON="0,10,20,30,40,50 * * * * *".
 */
import { NodeRuntime } from "@effect/platform-node"
import { DynamoLockStore } from "@leasehold/dynamodb"
import { Lock } from "@leasehold/lock"
import { Clock, Config, ConfigError, Cron, Effect, Either, Schedule } from "effect"
import { hostname } from "node:os"

/** Shown to the other replicas and to operators (`leasehold list`) as the lock's holder. */
const replica = `${hostname()} pid ${process.pid}`

/** The job itself; `fence` goes to anything it writes, so a replica that outlived its lease can be refused. */
const nightlyReport = (fence: number) =>
  Effect.gen(function*() {
    yield* Effect.logInfo(`${replica}: building the nightly report (fence ${fence})`)
    yield* Effect.sleep("2 seconds")
    yield* Effect.logInfo(`${replica}: report done`)
  })

const tick = Effect.gen(function*() {
  const lease = yield* Lock.acquire("nightly-report", {
    // Try once: another replica holding the lock means this tick is taken care of.
    wait: 0,
    // Long enough for the job between heartbeats; the heartbeat renews it while the job runs.
    lease: "1 minute",
    holder: replica
  })
  yield* nightlyReport(lease.fence)
}).pipe(
  Effect.scoped,
  Effect.either,
  Effect.flatMap(Either.match({
    onLeft: (error) =>
      error._tag === "LockNotAcquired"
        ? Effect.logInfo(`${replica}: skipped this tick, ${error.holder?.holder ?? "another replica"} runs it`)
        : Effect.logWarning(`${replica}: tick failed: ${error.message}`),
    onRight: () => Effect.void
  }))
)

/** At 02:00 every night (UTC) unless REPORT_CRON says otherwise; every replica wakes up, one of them works. */
const cron = Config.string("REPORT_CRON").pipe(
  Config.withDefault("0 2 * * *"),
  Config.mapOrFail((expression) =>
    Either.mapLeft(Cron.parse(expression, "UTC"), (error) => ConfigError.InvalidData(["REPORT_CRON"], error.message))
  )
)

const program = Effect.gen(function*() {
  const schedule = yield* cron
  // A long wait between ticks is the normal state of a cron job: say when the next one is, so it does not look hung.
  const announceNext = Effect.flatMap(
    Clock.currentTimeMillis,
    (now) => Effect.logInfo(`${replica}: next tick at ${Cron.next(schedule, now).toISOString()}`)
  )
  yield* announceNext
  // `schedule`, not `repeat`: the first run is at the first tick, not at every start or deploy of a replica.
  yield* Effect.schedule(Effect.zipRight(tick, announceNext), Schedule.cron(schedule))
}).pipe(Effect.provide(DynamoLockStore.layerConfig()))

NodeRuntime.runMain(program)
