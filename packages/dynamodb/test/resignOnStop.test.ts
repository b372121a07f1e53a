/**
 * A leader stopped by a signal resigns: `examples/resignOnStop.ts`, bundled for this Effect line and run as child
 * processes on a dynalite table, campaigns under `NodeRuntime.runMain`. The leader gets SIGTERM while a follower
 * campaigns: it exits with `runMain`'s code for an interruption, having released its lock on the way out, and the
 * follower leads. The new leader, alone and stopped with SIGINT, leaves the lock free.
 *
 * Real time throughout (these are processes). The example keeps the default 30 s lease and 10 s clock-skew bound, so
 * a lock left to expire could be taken over no sooner than 30 s after the signal (its last renew at most a 10 s
 * heartbeat before it, then lease and skew): a takeover within the bound below is a release, and the bound leaves a
 * busy two-core machine a wide margin.
 */
import { expect, layer } from "@effect/vitest"
import type { LockRecord } from "@leasehold/lock"
import * as DynamoServer from "@leasehold/testing/DynamoServer"
import * as NodeProgram from "@leasehold/testing/NodeProgram"
import { Deferred, Duration, Effect, Layer, Option, Ref, Stream } from "effect"
import * as Fs from "node:fs"
import { hostname } from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { layerScoped } from "../src/internal/effectLine.js"
import { FileSystem, nodeServices, Service, sigkill, signalExitCode, spawn } from "./effectLine.js"
import { inRealTime, makeStore, makeTable } from "./support.js"

const packageDirectory = fileURLToPath(new URL("..", import.meta.url))

/** The example, in the repository's `examples` folder: the nearest one above this package, on either line. */
const example = (() => {
  for (let directory = packageDirectory; directory !== Path.dirname(directory); directory = Path.dirname(directory)) {
    const file = Path.join(directory, "examples", "resignOnStop.ts")
    if (Fs.existsSync(file)) return file
  }
  throw new Error(`no examples/resignOnStop.ts above ${packageDirectory}`)
})()

/** The election the example campaigns in: its lock's name. */
const election = "singleton-worker"

/** The example bundled once, with this line's packages (it is one source for both lines). */
const ExampleBundle = Service<string>("resignOnStop.test/ExampleBundle")

const ExampleBundleLive = layerScoped(
  ExampleBundle,
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const directory = yield* fs.makeTempDirectoryScoped({ prefix: "leasehold-resign-" })
    const outfile = `${directory}/resignOnStop.mjs`
    yield* Effect.orDie(
      NodeProgram.bundle({
        entry: example,
        outfile,
        workingDirectory: packageDirectory,
        conditions: ["@leasehold/source"],
        resolveFrom: packageDirectory
      })
    )
    return outfile
  })
)

/**
 * Loaded ahead of the example: a replica that the test leaves behind (its run killed) ends with it, rather than
 * campaign forever. The test keeps the replica's stdin open; the pipe ends when the test's process does.
 */
const endWithParent = "--import=data:text/javascript," +
  encodeURIComponent("process.stdin.on(\"end\", () => process.kill(process.pid, \"SIGKILL\")).resume()")

/** How long a replica may take to start and campaign: seconds of CPU on a busy machine. */
const startTimeout = Duration.seconds(30)
/** How long a signalled replica may take to resign and exit: one release attempt, and a busy machine. */
const exitTimeout = Duration.seconds(15)
/** How soon after the leader's SIGTERM the follower must lead: well under the 30 s an expiry would take at least. */
const takeoverBoundMs = 15_000

const monotonicMs = () => performance.now()

interface Replica {
  /** The name it holds the lock under, as the example makes it. */
  readonly holder: string
  /** Waits until its output (stdout and stderr) contains `text`. */
  readonly printed: (text: string) => Effect.Effect<void>
  /** Sends it a signal; returns the monotonic time (ms) at which it was sent. */
  readonly signal: (signal: "SIGTERM" | "SIGINT") => Effect.Effect<number>
  /** Waits for its exit code (or why it has none). */
  readonly exit: Effect.Effect<number | string>
  /** Everything it printed so far. */
  readonly output: Effect.Effect<string>
}

const startReplica = (environment: Record<string, string>) =>
  Effect.gen(function*() {
    const bundle = yield* ExampleBundle
    const child = yield* spawn(process.execPath, [endWithParent, bundle], environment)
    yield* Effect.addFinalizer(() =>
      Effect.flatMap(child.isRunning, (running) => running ? sigkill(child) : Effect.void).pipe(Effect.ignore)
    )
    const output = yield* Ref.make("")
    const changed = yield* Ref.make(yield* Deferred.make<void>())
    const append = (text: string) =>
      Effect.gen(function*() {
        yield* Ref.update(output, (all) => all + text)
        yield* Deferred.succeed(yield* Ref.getAndSet(changed, yield* Deferred.make<void>()), undefined)
      })
    for (const stream of [child.stdout, child.stderr]) {
      yield* stream.pipe(Stream.decodeText(), Stream.runForEach(append), Effect.ignore, Effect.forkScoped)
    }
    const exited = yield* Deferred.make<number | string>()
    yield* child.exitCode.pipe(
      // A process that a signal ended has no exit code: the error says which signal.
      Effect.match({ onFailure: (error): number | string => `no exit code: ${error.message}`, onSuccess: Number }),
      Effect.flatMap((code) => Deferred.succeed(exited, code)),
      Effect.forkScoped
    )
    const holder = `${hostname()} pid ${child.pid}`
    const printed = (text: string): Effect.Effect<void> => {
      const find: Effect.Effect<void> = Effect.gen(function*() {
        const wait = yield* Ref.get(changed)
        if ((yield* Ref.get(output)).includes(text)) return
        yield* Deferred.await(wait)
        return yield* find
      })
      return within(startTimeout, `"${text}" from ${holder}`, Ref.get(output))(find)
    }
    const replica: Replica = {
      holder,
      printed,
      signal: (signal) =>
        Effect.sync(() => {
          process.kill(child.pid, signal)
          return monotonicMs()
        }),
      exit: within(exitTimeout, `the exit of ${holder}`, Ref.get(output))(Deferred.await(exited)),
      output: Ref.get(output)
    }
    return replica
  })

/** `self` if it is done within `timeout`; else dies saying what did not come, with `output`. */
const within =
  (timeout: Duration.Duration, what: string, output: Effect.Effect<string>) =>
  <A>(self: Effect.Effect<A>): Effect.Effect<A> =>
    self.pipe(
      Effect.timeoutOption(timeout),
      Effect.flatMap(Option.match({
        onNone: () =>
          Effect.flatMap(
            output,
            (text) => Effect.die(`no ${what} within ${Duration.format(timeout)}; output:\n${text}`)
          ),
        onSome: Effect.succeed
      }))
    )

/** A fresh table, a store on it for the test's own looks, and the environment the example reads its table from. */
const makeScenario = Effect.gen(function*() {
  const server = yield* DynamoServer.DynamoServer
  const { tableName } = yield* makeTable()
  const store = yield* makeStore(tableName)
  const credentials = server.clientConfig.credentials ?? DynamoServer.localCredentials
  const environment = {
    LEASEHOLD_TABLE: tableName,
    DYNAMODB_ENDPOINT: server.clientConfig.endpoint,
    AWS_REGION: server.clientConfig.region,
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey
  }
  /** Reads the election's record every 50 ms until `done` holds of it; dies with `output` after `timeout`. */
  const awaitRecord = (
    what: string,
    done: (record: LockRecord.LockRecord) => boolean,
    timeout: Duration.Duration,
    output: Effect.Effect<string>
  ) => {
    const look: Effect.Effect<LockRecord.LockRecord> = Effect.gen(function*() {
      const record = yield* Effect.orDie(store.inspect(election))
      if (Option.isSome(record) && done(record.value)) return record.value
      yield* Effect.sleep("50 millis")
      return yield* look
    })
    return within(timeout, what, output)(look)
  }
  const inspect = Effect.orDie(store.inspect(election))
  return { environment, awaitRecord, inspect }
})

const TestLayer = Layer.mergeAll(
  DynamoServer.layerDynalite,
  nodeServices,
  ExampleBundleLive.pipe(Layer.provide(nodeServices))
)

layer(TestLayer, { excludeTestServices: true })(
  "examples/resignOnStop.ts under NodeRuntime.runMain (dynalite)",
  (it) => {
    it.effect(
      "a leader stopped with SIGTERM releases its lock on the way out, and the follower leads at once; SIGINT alike",
      () =>
        Effect.gen(function*() {
          const { awaitRecord, environment, inspect } = yield* makeScenario
          const leader = yield* startReplica(environment)
          const first = yield* awaitRecord(
            `${leader.holder} leading`,
            (record) => record.holder === leader.holder,
            startTimeout,
            leader.output
          )
          const follower = yield* startReplica(environment)
          yield* follower.printed(`campaigning for ${election}`)

          // The stopped leader's lease as it stood before the signal (a renew since only moves it further out).
          const before = Option.getOrThrow(yield* inspect)
          const signalled = yield* leader.signal("SIGTERM")
          expect(yield* leader.exit, yield* leader.output).toBe(signalExitCode)
          const both = Effect.zipWith(leader.output, follower.output, (a, b) => `${a}\n${b}`)
          const second = yield* awaitRecord(
            `${follower.holder} leading`,
            (record) => record.holder === follower.holder,
            Duration.millis(takeoverBoundMs),
            both
          )
          const takeoverMs = monotonicMs() - signalled
          expect(yield* leader.output).toContain(`${leader.holder}: stopped`)
          expect(second.fence).toBeGreaterThan(first.fence)
          // Taken because it was released: the new term began before the stopped leader's lease ran out, let alone the
          // clock-skew bound after it, which a takeover of an expired lease waits for.
          expect(before.holder).toBe(leader.holder)
          expect(second.acquiredAt!).toBeLessThan(before.leaseUntil)
          expect(takeoverMs, `the follower led ${Math.round(takeoverMs)} ms after the SIGTERM`)
            .toBeLessThan(takeoverBoundMs)

          // Alone now, the new leader stopped with SIGINT leaves the lock free.
          yield* follower.signal("SIGINT")
          expect(yield* follower.exit, yield* follower.output).toBe(signalExitCode)
          const after = Option.getOrThrow(yield* inspect)
          expect([after.owner, after.holder, after.fence]).toEqual([undefined, undefined, second.fence])
        }).pipe(Effect.scoped, inRealTime),
      120_000
    )
  }
)
