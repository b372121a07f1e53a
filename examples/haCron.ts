/**
 * A highly available cron: every replica of a service runs the same schedule, and leader election decides which one
 * fires. Each tick, the leader fires the job with its term's fence (downstream writes carry it, so a replica that was
 * replaced can be refused); the followers skip the tick. If the leader dies, a follower is elected within
 * lease + maxClockSkew + pollInterval of the dead leader's last renew (here 15 + 10 + 1 s) and fires the ticks
 * from then on. A tick that falls into that gap is not fired by anyone.
 *
 * Unlike `cronSingleton.ts` (one lock per tick, `wait: 0`), the leader keeps its lock between ticks: a tick costs no
 * store call, and who fires is known before the tick (`npx leasehold list` shows the leader).
 *
 *   LEASEHOLD_TABLE=locks AWS_REGION=eu-west-1 node --import tsx examples/haCron.ts
 *
 * HA_CRON overrides the schedule (cron syntax, UTC, with an optional seconds field first), e.g. every 10 seconds to
 * watch two replicas locally: HA_CRON="0,10,20,30,40,50 * * * * *". Stop the leader (Ctrl-C resigns at once;
 * `kill -9` lets its lease run out) and watch the other replica take over.
 */
import { NodeRuntime } from "@effect/platform-node"
import { DynamoLockStore } from "@leasehold/dynamodb"
import { LeaderElection } from "@leasehold/lock"
import { Clock, Config, ConfigError, Cron, Effect, Either, Option, Queue, Ref, Schedule } from "effect"
import { hostname } from "node:os"
import { pathToFileURL } from "node:url"

/** One firing of the job: the tick it is for, and the term of the leader that fires it. */
export interface Firing {
  /** When the tick was due: epoch ms. */
  readonly at: number
  /** The term's fencing token: downstream systems refuse firings with a fence lower than one they have seen. */
  readonly fence: number
  /** The replica that fired. */
  readonly holder: string
}

export interface ReplicaOptions {
  /** The election every replica of the service takes part in. */
  readonly election: string
  /** This replica's name, shown to the others and to operators. */
  readonly holder: string
  readonly cron: Cron.Cron
  /** The job. It runs in the leader's term, so it is interrupted if the leadership is lost while it runs. */
  readonly job: (firing: Firing) => Effect.Effect<void>
  /** The lock's options: how long a dead leader keeps the others waiting. */
  readonly electionOptions?: Omit<LeaderElection.ElectionOptions, "holder"> | undefined
}

/**
 * One replica: runs the schedule, and campaigns. While it leads, each tick is handed to its term, which fires the job
 * with the term's fence; while it follows, each tick is skipped. Runs until interrupted (which resigns).
 */
export const replica = (options: ReplicaOptions) =>
  Effect.gen(function*() {
    const { cron, election, holder, job } = options
    // The current term's inbox of ticks, while this replica leads: a new one per term, so no tick outlives its term.
    const term = yield* Ref.make(Option.none<Queue.Queue<number>>())

    const tick = Effect.gen(function*() {
      const at = yield* Clock.currentTimeMillis
      const inbox = yield* Ref.get(term)
      if (Option.isSome(inbox)) return yield* Queue.offer(inbox.value, at)
      yield* Effect.logInfo(`${holder}: tick ${new Date(at).toISOString()} skipped, another replica leads`)
    })

    const lead = (current: LeaderElection.Term) =>
      Effect.gen(function*() {
        const inbox = yield* Effect.acquireRelease(
          Effect.tap(Queue.unbounded<number>(), (queue) => Ref.set(term, Option.some(queue))),
          () => Ref.set(term, Option.none())
        )
        yield* Effect.logInfo(`${holder}: leading, fence ${current.fence}`)
        while (true) {
          const at = yield* Queue.take(inbox)
          yield* job({ at, fence: current.fence, holder: current.holder })
        }
      }).pipe(Effect.scoped)

    // Every replica runs the schedule; `schedule`, not `repeat`: the first run is at the first tick.
    yield* Effect.forkScoped(Effect.schedule(tick, Schedule.cron(cron)))
    return yield* LeaderElection.run(election, lead, { lease: "15 seconds", ...options.electionOptions, holder })
  }).pipe(Effect.scoped)

/** At the start of every minute (UTC) unless HA_CRON says otherwise. */
const cronConfig = Config.string("HA_CRON").pipe(
  Config.withDefault("* * * * *"),
  Config.mapOrFail((expression) =>
    Either.mapLeft(Cron.parse(expression, "UTC"), (error) => ConfigError.InvalidData(["HA_CRON"], error.message))
  )
)

const name = `${hostname()} pid ${process.pid}`

/** The job: a report, written with the fence so that the report store can refuse a replaced leader's write. */
const report = (firing: Firing) =>
  Effect.gen(function*() {
    yield* Effect.logInfo(`${firing.holder}: report for ${new Date(firing.at).toISOString()} (fence ${firing.fence})`)
    yield* Effect.sleep("1 second")
  })

const program = Effect.gen(function*() {
  const cron = yield* cronConfig
  yield* replica({ election: "ha-cron/report", holder: name, cron, job: report })
}).pipe(Effect.provide(DynamoLockStore.layerConfig()))

// Only when run as a script: the test imports `replica`.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  NodeRuntime.runMain(program)
}
