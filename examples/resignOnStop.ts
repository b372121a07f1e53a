/**
 * A singleton worker that steps down when it is stopped. Every replica of a service runs this program; leader
 * election picks the one that works. When the leader is stopped (a deploy, a scale-in, Ctrl-C), it resigns on its way
 * out, and a follower leads within its poll interval (1 s at the defaults), instead of waiting for the stopped
 * leader's lease and the clock-skew bound to run out (30 + 10 s at the defaults).
 *
 * What makes the stop graceful is `NodeRuntime.runMain` from `@effect/platform-node`, on Effect 3 and Effect 4 alike:
 * on SIGTERM or SIGINT it interrupts the program, the interruption ends the leader's term, and the term's end
 * releases the election's lock before the process exits. A program started with `Effect.runPromise` or
 * `Effect.runFork` instead is ended by SIGTERM on the spot, with no finalizer run: its lock stays taken until the
 * lease runs out, as after `kill -9`. The exit code after a signal: 0 on Effect 3, 130 on Effect 4.
 *
 *   LEASEHOLD_TABLE=locks AWS_REGION=eu-west-1 node --import tsx examples/resignOnStop.ts
 *
 * (`DYNAMODB_ENDPOINT` points it at DynamoDB Local or dynalite.) Start it twice, then stop the leader with Ctrl-C or
 * `kill <pid>`: the other replica leads within a second. `kill -9 <pid>` shows what an ungraceful end costs.
 */
import { NodeRuntime } from "@effect/platform-node"
import { DynamoLockStore } from "@leasehold/dynamodb"
import { LeaderElection } from "@leasehold/lock"
import { Effect } from "effect"
import { hostname } from "node:os"

/** The election every replica takes part in: the name of its lock. */
const election = "singleton-worker"

/** This replica's name in the lock's record, as `npx leasehold list` and the other replicas see it. */
const holder = `${hostname()} pid ${process.pid}`

/**
 * The leader's work, for as long as its term lasts: a batch every few seconds, each carrying the term's fence, so that
 * a downstream store can refuse the batches of a leader that has been replaced.
 */
const lead = (term: LeaderElection.Term) =>
  Effect.gen(function*() {
    yield* Effect.logInfo(`${holder}: leading, fence ${term.fence}`)
    let batch = 0
    while (true) {
      batch += 1
      yield* Effect.logInfo(`${holder}: batch ${batch}, fence ${term.fence}`)
      yield* Effect.sleep("5 seconds")
    }
  })

const program = Effect.gen(function*() {
  yield* Effect.logInfo(`${holder}: campaigning for ${election}`)
  // Defaults: a 30 s lease renewed every 10 s, a 10 s clock-skew bound, a 1 s poll while following.
  yield* LeaderElection.run(election, lead, { holder })
}).pipe(
  // Runs only when the program ends, interrupted or not: by then its term is over and the lock released.
  Effect.ensuring(Effect.logInfo(`${holder}: stopped`)),
  Effect.provide(DynamoLockStore.layerConfig())
)

NodeRuntime.runMain(program)
